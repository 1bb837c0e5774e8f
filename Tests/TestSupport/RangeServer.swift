import BookRuleLocking
import Foundation
import BookRuleHTTP
import BookRuleLibrary

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
private let rangeNoSignal = Int32(MSG_NOSIGNAL)
#else
private let rangeNoSignal: Int32 = 0
#endif

/// A loopback HTTP/1.1 file server for download tests: one generated file at any path, served with `Range`,
/// `If-Range` and `ETag` as RFC 9110 says (or misbehaving as `Config` asks), counting the body bytes it sends.
///
/// The file's bytes are generated from its `version` and never held whole in memory (a 200 MiB file costs one
/// 128 KiB pattern); `RangeServer.expectedSHA256(length:version:)` gives its checksum. Each connection is served
/// on its own thread with `Connection: close`; the server stops after `lifetime` seconds (times `TestTime.scale`), `maxRequests`
/// connections or `stop()`, and every socket write has a 5 s timeout, so a test can never hang on it.
package final class RangeServer: Sendable {
    /// How the server behaves; change it between runs with `update`.
    package struct Config: Sendable {
        /// The file's length in bytes.
        package var length: Int
        /// Which content (and ETag) the file has now.
        package var version: Int = 1
        /// What kind of ETag is sent.
        package var etag: ETagKind = .strong
        /// A Last-Modified value to send, if any.
        package var lastModified: String?
        /// Answer every request with the whole file (200), as a server without range support.
        package var ignoreRange: Bool = false
        /// Send `Accept-Ranges: none` (the range is still honoured if asked, as some servers do).
        package var acceptRangesNone: Bool = false
        /// Send body bytes no faster than this (nil: as fast as the socket takes them).
        package var bytesPerSecond: Int?
        /// Close the connection of the next response after this many body bytes (one time only).
        package var dropAfterBytes: Int?
        /// Stop sending the next response after this many body bytes and hold the connection open until the
        /// client goes away, `stop()`, or 60 s (one time only), so a test can interrupt the client at a known byte.
        package var stallAfterBytes: Int?
        /// Before answering, wait (up to 20 s) until this returns true: lets a test require that something else
        /// is happening at the same time (another server busy) without racing the machine's speed.
        package var gate: (@Sendable () -> Bool)?
        /// Serve at a lower CPU priority (nice 10), so a full-speed transfer leaves the CPU to other tests.
        package var lowPriority: Bool = false
        /// Send at most this many bytes in a 206 (RFC 9110 lets a server send less than the range asked for).
        package var maxRangeBytes: Int?
        /// Honour `Range` whatever `If-Range` says, as a broken server would.
        package var ignoreIfRange: Bool = false
        /// A Content-Encoding header to send with the (unchanged) bytes.
        package var contentEncoding: String?
        /// Close every response's connection after this many body bytes (not only the next one).
        package var dropEveryResponseAfterBytes: Int?
        /// With `maxRangeBytes`: announce the short range in Content-Range but send the rest of the file anyway.
        package var sendPastAnnouncedRange: Bool = false

        /// Every setting, with the defaults above.
        package init(length: Int, version: Int = 1, etag: ETagKind = .strong, lastModified: String? = nil, ignoreRange: Bool = false, acceptRangesNone: Bool = false, bytesPerSecond: Int? = nil, dropAfterBytes: Int? = nil, stallAfterBytes: Int? = nil, gate: (@Sendable () -> Bool)? = nil, lowPriority: Bool = false, maxRangeBytes: Int? = nil, ignoreIfRange: Bool = false, contentEncoding: String? = nil, dropEveryResponseAfterBytes: Int? = nil, sendPastAnnouncedRange: Bool = false) {
            self.length = length
            self.version = version
            self.etag = etag
            self.lastModified = lastModified
            self.ignoreRange = ignoreRange
            self.acceptRangesNone = acceptRangesNone
            self.bytesPerSecond = bytesPerSecond
            self.dropAfterBytes = dropAfterBytes
            self.stallAfterBytes = stallAfterBytes
            self.gate = gate
            self.lowPriority = lowPriority
            self.maxRangeBytes = maxRangeBytes
            self.ignoreIfRange = ignoreIfRange
            self.contentEncoding = contentEncoding
            self.dropEveryResponseAfterBytes = dropEveryResponseAfterBytes
            self.sendPastAnnouncedRange = sendPastAnnouncedRange
        }
    }

    /// The ETag the server sends.
    package enum ETagKind: Sendable {
        case strong, weak, none
    }

    /// What the server saw of one request and what it answered.
    package struct Record: Sendable {
        package var target: String
        var headers: [HTTPHeader]
        package var status: Int
        /// The first byte sent (the range start of a 206, else 0).
        package var firstByte: Int
        /// Body bytes written to the socket.
        var bodyBytesSent: Int
        package var arrival: ContinuousClock.Instant
        package var finish: ContinuousClock.Instant?
        var inFlightAtArrival: Int
        /// The Last-Modified value the answer carried, if any.
        package var lastModifiedSent: String?

        package func header(_ name: String) -> String? { headers.value(for: name) }
    }

    private struct State {
        var config: Config
        var records: [Record] = []
        var inFlight = 0
        var maxInFlight = 0
        var listenFD: Int32
        var stopped = false
        var stalled = false
    }

    package let port: UInt16
    package let baseURL: String
    private let state: Locked<State>

    package init(_ config: Config, lifetime: Double = 60, maxRequests: Int = 200) throws {
        let (fd, port) = try LoopbackListener.open(backlog: 32)
        self.port = port
        baseURL = "http://127.0.0.1:\(port)"
        state = Locked(State(config: config, listenFD: fd))
        let thread = Thread { [self] in self.acceptLoop(lifetime: TestTime.seconds(lifetime), maxRequests: maxRequests) }
        thread.start()
    }

    deinit {
        stop()
    }

    /// Changes the behaviour for later requests.
    package func update(_ change: (inout Config) -> Void) {
        state.withLock { change(&$0.config) }
    }

    package var records: [Record] { state.withLock { $0.records } }
    /// Requests being answered right now.
    package var inFlight: Int { state.withLock { $0.inFlight } }
    /// Whether a response is being held at `stallAfterBytes`.
    package var isStalled: Bool { state.withLock { $0.stalled } }
    package var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    package var totalBodyBytesSent: Int { state.withLock { $0.records.reduce(0) { $0 + $1.bodyBytesSent } } }

    /// Stops accepting (at once: the listener is shut down) and ends streaming responses at their next write.
    /// Idempotent. The accept thread closes the listening socket itself, so its descriptor number cannot be
    /// reused by another test's server while that thread still polls it.
    package func stop() {
        state.withLock { state in
            state.stopped = true
            if state.listenFD >= 0 { shutdown(state.listenFD, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits up to `timeout` seconds until no response is being written.
    package func waitUntilIdle(timeout: Double = 10) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while state.withLock({ $0.inFlight > 0 }) {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    // MARK: - Content

    private static let period = 65_521

    /// The repeating pattern of `version` (period bytes, plus 64 KiB more so any 64 KiB window is contiguous).
    package static func pattern(version: Int) -> [UInt8] {
        var seed = UInt64(version) &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678
        var bytes = [UInt8](repeating: 0, count: period + 65_536)
        for index in 0..<period {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: seed >> 33)
        }
        for index in period..<bytes.count { bytes[index] = bytes[index - period] }
        return bytes
    }

    /// The bytes `from..<to` of the file of `version`.
    package static func content(version: Int, from: Int, to: Int) -> [UInt8] {
        let pattern = pattern(version: version)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(to - from)
        var position = from
        while position < to {
            let start = position % period
            let count = min(65_536, to - position)
            bytes.append(contentsOf: pattern[start..<(start + count)])
            position += count
        }
        return bytes
    }

    private static let digests = Locked<[String: String]>([:])

    /// The SHA-256 of the whole file of `length` bytes and `version`, from coreutils' `sha256sum` when it is
    /// installed (an independent implementation, and fast in debug builds), else from `BookRuleLibrary.SHA256`. Runs on
    /// a thread of its own: blocking the two threads of the concurrency pool stalled every other test.
    package static func expectedSHA256(length: Int, version: Int) async -> String {
        await onOwnThread { blockingExpectedSHA256(length: length, version: version) }
    }

    /// The SHA-256 of the file at `path` (`sha256sum` when installed, else `BookRuleLibrary.SHA256`), on a thread of its own.
    package static func sha256(ofFile path: String) async throws -> String {
        try await onOwnThread { try blockingSHA256(ofFile: path) }.get()
    }

    /// Runs `work` on a new thread and waits for it without holding a thread of the concurrency pool.
    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    private static func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { try work() }) }.start()
        }
    }

    private static func blockingExpectedSHA256(length: Int, version: Int) -> String {
        let key = "\(length)/\(version)"
        if let known = digests.withLock({ $0[key] }) { return known }
        let pattern = pattern(version: version)
        var digest: String?
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            if (try? process.run()) != nil {
                let writer = Thread {
                    var position = 0
                    while position < length {
                        let start = position % period
                        let count = min(65_536, length - position)
                        pattern.withUnsafeBytes { buffer in
                            input.fileHandleForWriting.write(Data(buffer[start..<(start + count)]))
                        }
                        position += count
                    }
                    try? input.fileHandleForWriting.close()
                }
                writer.start()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                digest = text.split(separator: " ").first.map(String.init)
            }
        }
        if digest == nil {
            var hash = BookRuleLibrary.SHA256()
            var position = 0
            pattern.withUnsafeBytes { buffer in
                while position < length {
                    let start = position % period
                    let count = min(65_536, length - position)
                    hash.update(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)]))
                    position += count
                }
            }
            digest = hash.hexDigest()
        }
        let result = digest ?? ""
        digests.withLock { $0[key] = result }
        return result
    }

    private static func blockingSHA256(ofFile path: String) throws -> String {
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
            process.arguments = [path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            if process.terminationStatus == 0, let digest = text.split(separator: " ").first { return String(digest) }
        }
        return try ResumableDownload.sha256(ofFile: path)
    }

    /// The ETag of `version` of a file of `length` bytes under `kind`.
    package static func etag(_ kind: ETagKind, version: Int, length: Int) -> String? {
        switch kind {
        case .strong: return "\"v\(version)-\(length)\""
        case .weak: return "W/\"v\(version)-\(length)\""
        case .none: return nil
        }
    }

    // MARK: - Serving

    private func acceptLoop(lifetime: Double, maxRequests: Int) {
        let deadline = Date().addingTimeInterval(lifetime)
        var served = 0
        defer {
            state.withLock { state in
                state.stopped = true
                if state.listenFD >= 0 { close(state.listenFD) }
                state.listenFD = -1
            }
        }
        while served < maxRequests {
            let fd = state.withLock { $0.stopped ? -1 : $0.listenFD }
            guard fd >= 0 else { return }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { break }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(remaining, 0.2) * 1000))
            if ready < 0 { break }
            if ready == 0 { continue }
            let client = accept(fd, nil, nil)
            if client < 0 { continue }
            served += 1
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in
                self.serve(client)
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ client: Int32) {
        guard let (target, headers) = readHead(client) else { return }
        let arrival = ContinuousClock.now
        // Decide the answer and register the request.
        let (config, index) = state.withLock { state -> (Config, Int) in
            let config = state.config
            state.config.dropAfterBytes = nil
            state.config.stallAfterBytes = nil
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            state.records.append(Record(
                target: target, headers: headers, status: 0, firstByte: 0, bodyBytesSent: 0, arrival: arrival,
                finish: nil, inFlightAtArrival: state.inFlight, lastModifiedSent: config.lastModified))
            return (config, state.records.count - 1)
        }
        // Done just before the last bytes go out, as a client that waits for the end of one response before
        // sending the next request sees it (so sequential requests never count as overlapping).
        var finished = false
        func finish() {
            guard !finished else { return }
            finished = true
            state.withLock { state in
                state.inFlight -= 1
                state.records[index].finish = .now
            }
        }
        defer { finish() }
        if let gate = config.gate {
            let deadline = Date().addingTimeInterval(20)
            while !gate() && Date() < deadline && !state.withLock({ $0.stopped }) {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        if config.lowPriority {
            // On Linux PRIO_PROCESS with 0 means the calling thread: only this connection's thread is niced.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
        }
        let length = config.length
        let etag = Self.etag(config.etag, version: config.version, length: length)
        var fields: [(String, String)] = [("Accept-Ranges", config.acceptRangesNone ? "none" : "bytes")]
        if let etag { fields.append(("ETag", etag)) }
        if let lastModified = config.lastModified { fields.append(("Last-Modified", lastModified)) }
        if let coding = config.contentEncoding { fields.append(("Content-Encoding", coding)) }
        fields.append(("Date", DateCodec.imfFixdate(Date())))

        var status = 200
        var start = 0
        var stop = length
        if !config.ignoreRange, let range = headers.value(for: "Range"), range.hasPrefix("bytes="),
           range.hasSuffix("-"), let first = Int(range.dropFirst(6).dropLast())
        {
            let ifRange = headers.value(for: "If-Range")
            let validatorMatches = config.ignoreIfRange || ifRange == nil
                || (etag != nil && ifRange == etag && !(etag ?? "").hasPrefix("W/"))
                || (config.lastModified != nil && ifRange == config.lastModified)
            if validatorMatches {
                if first >= length {
                    fields.append(("Content-Range", "bytes */\(length)"))
                    state.withLock { $0.records[index].status = 416 }
                    finish()
                    _ = send(client, head(416, "Range Not Satisfiable", fields, contentLength: 0))
                    return
                }
                status = 206
                start = first
                stop = config.maxRangeBytes.map { min(length, first + $0) } ?? length
                fields.append(("Content-Range", "bytes \(first)-\(stop - 1)/\(length)"))
                if config.sendPastAnnouncedRange { stop = length }
            }
        }
        state.withLock { state in
            state.records[index].status = status
            state.records[index].firstByte = start
        }
        if start >= stop { finish() }
        guard send(client, head(status, status == 206 ? "Partial Content" : "OK", fields, contentLength: stop - start)) else {
            return
        }
        let pattern = Self.pattern(version: config.version)
        let chunk = config.bytesPerSecond.map { max(1024, min(65_536, $0 / 50)) } ?? 65_536
        var position = start
        var sentHere = 0
        while position < stop {
            if state.withLock({ $0.stopped }) { return }
            var count = min(chunk, stop - position)
            if let drop = config.dropAfterBytes ?? config.dropEveryResponseAfterBytes {
                if sentHere >= drop { return }
                count = min(count, drop - sentHere)
            }
            if let stall = config.stallAfterBytes {
                if sentHere >= stall {
                    holdUntilClientLeaves(client)
                    return
                }
                count = min(count, stall - sentHere)
            }
            let offset = position % Self.period
            if position + count >= stop { finish() }
            let sent = pattern.withUnsafeBytes { buffer in
                sendAll(client, UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + count)]))
            }
            state.withLock { $0.records[index].bodyBytesSent += sent }
            if sent < count { return }
            position += count
            sentHere += count
            if let rate = config.bytesPerSecond {
                Thread.sleep(forTimeInterval: Double(count) / Double(rate))
            }
        }
    }

    /// Keeps the connection open without sending, until the client closes it, `stop()`, or 60 s.
    private func holdUntilClientLeaves(_ client: Int32) {
        state.withLock { $0.stalled = true }
        defer { state.withLock { $0.stalled = false } }
        let deadline = Date().addingTimeInterval(60)
        var scratch = [UInt8](repeating: 0, count: 1024)
        while Date() < deadline, !state.withLock({ $0.stopped }) {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, 50)
            if ready < 0 { return }
            if ready > 0 {
                let count = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if count <= 0 { return }
            }
        }
    }

    private func head(_ status: Int, _ reason: String, _ fields: [(String, String)], contentLength: Int) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(contentLength)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8)
    }

    private func send(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { sendAll(client, $0) } == bytes.count
    }

    /// Writes `bytes`; returns how many went out before the client went away.
    private func sendAll(_ client: Int32, _ bytes: UnsafeRawBufferPointer) -> Int {
        var sent = 0
        while sent < bytes.count {
            let count = Glibc.send(client, bytes.baseAddress.map { $0 + sent }, bytes.count - sent, rangeNoSignal)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return sent }
            sent += count
        }
        return sent
    }

    private func readHead(_ client: Int32) -> (String, [HTTPHeader])? {
        let request = WireRequestReader.read {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(chunk[0..<count]) : nil
        }
        return request.map { ($0.target, $0.headers) }
    }
}
