import BookRule
import BookRuleLocking
import BookRuleServe
import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// `bookrule serve` answering saved chapters: a library in a scratch folder holds one book of `chapters` saved
/// chapters (fetched from a loopback mirror, then each re-saved with a text of a real chapter's size),
/// `ReadingServer` serves it on a free loopback port, and CLIENTS clients, each on a thread of its own with one
/// keep-alive connection, ask `getBookContent` for chapter after chapter, REQUESTS in all. Every answer is
/// checked (status 200, a success envelope, its length). Prints the latency percentiles of the timed requests,
/// the requests per second over the run, the CPU time the rest of the process (the server) spent per request,
/// and the share of the process's CPU time the clients used (the server and the clients share the cores, so a
/// heavy client would inflate the server's numbers). The issue's target (#23): p99 under 10 ms for 50 clients.
enum ServeContentBenchmark {
    /// A chapter's text: about 3,400 characters (about 10 KB of UTF-8), a common web-novel chapter.
    static func text(_ number: Int) -> String {
        (1...60).map { "　　第\(number)章第\($0)段：" + String(repeating: "山海星河长夜灯火", count: 6) + "。" }
            .joined(separator: "\n")
    }

    static func run(clients: Int, requests: Int, chapters: Int = 200) async throws {
        let directory = try ScratchDirectory("serve-bench")
        let site = try MirrorSite(host: "127.0.0.1", chapters: chapters)
        let sourcePath = try site.sourceFile(named: "mirror", in: directory.path)
        let libraryPath = directory.path + "/library.sqlite"
        let store = try LibraryStore(path: libraryPath)
        let transport = TransportStack.live(policy: PolitenessPolicy(delay: .zero, failureDelay: .zero, jitter: false),
                                            hostStatePath: nil)
        let fetch = BookFetch(source: try loadSource(site.sourceJSON(named: "mirror")), transport: transport.transport,
                              pacing: transport.fetcher, store: store)
        for try await _ in fetch.run(bookURL: site.bookURL, range: 1...chapters) {}
        guard let book = try store.books().first else { fail("the book was not saved") }
        let saved = try store.chapters(bookID: book.id)
        guard saved.count == chapters else { fail("expected \(chapters) chapters, the library has \(saved.count)") }
        for (offset, chapter) in saved.enumerated() {
            try store.saveChapter(bookID: book.id, url: chapter.url, text: text(offset + 1))
        }
        let server = try ReadingServer(configuration: ServeConfiguration(
            libraryPath: libraryPath, sourcePaths: [sourcePath], port: 0, transport: transport, prefetchChapters: 0))
        let bookURL = site.bookURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? site.bookURL
        let result = measure(port: server.port, clients: clients, requests: requests) { client, request in
            "/getBookContent?url=\(bookURL)&index=\((client * 7 + request) % chapters)"
        }
        await server.stop(waitingUpTo: 5)
        report(result, clients: clients, chapters: chapters)
    }

    /// What the clients measured.
    struct Measurement: Sendable {
        var latencies: [Double] = []
        var seconds = 0.0
        var connections = 0
        var answerBytes = 0
        var clientCPUMilliseconds = 0.0
        var processCPUMilliseconds = 0.0
        var failures: [String] = []
    }

    /// Runs the clients on threads of their own: each connects, sends one untimed request, and waits until all
    /// have; then all send their share of `requests` one after another, each timed from its first byte sent to
    /// its last byte received.
    static func measure(port: Int, clients: Int, requests: Int,
                        target: @escaping @Sendable (Int, Int) -> String) -> Measurement {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let results = Locked(Measurement())
        for client in 0..<clients {
            let share = requests / clients + (client < requests % clients ? 1 : 0)
            let thread = Thread {
                var connection = KeepAliveClient(port: port)
                var latencies: [Double] = []
                latencies.reserveCapacity(share)
                var failure: String?
                do {
                    _ = try connection.get(target(client, 0))
                } catch {
                    failure = "\(error)"
                }
                ready.signal()
                go.wait()
                let cpuStart = threadCPUMilliseconds()
                var bytes = 0
                for request in 0..<share where failure == nil {
                    let start = monotonicMilliseconds()
                    do {
                        bytes += try connection.get(target(client, request))
                    } catch {
                        failure = "\(error)"
                    }
                    latencies.append(monotonicMilliseconds() - start)
                }
                let cpu = threadCPUMilliseconds() - cpuStart
                connection.close()
                results.withLock {
                    $0.latencies += latencies
                    $0.connections += connection.connections
                    $0.answerBytes = max($0.answerBytes, latencies.isEmpty ? 0 : bytes / latencies.count)
                    $0.clientCPUMilliseconds += cpu
                    if let failure { $0.failures.append(failure) }
                }
                done.signal()
            }
            thread.start()
        }
        for _ in 0..<clients { ready.wait() }
        let cpuStart = ScriptTOCBenchmark.processCPUMilliseconds()
        let start = monotonicMilliseconds()
        for _ in 0..<clients { go.signal() }
        for _ in 0..<clients { done.wait() }
        let seconds = (monotonicMilliseconds() - start) / 1000
        let cpu = ScriptTOCBenchmark.processCPUMilliseconds() - cpuStart
        return results.withLock {
            var measurement = $0
            measurement.seconds = seconds
            measurement.processCPUMilliseconds = cpu
            return measurement
        }
    }

    static func report(_ result: Measurement, clients: Int, chapters: Int) {
        guard result.failures.isEmpty else { fail("\(result.failures.count) clients failed: \(result.failures[0])") }
        let sorted = result.latencies.sorted()
        guard !sorted.isEmpty else { fail("no requests were timed") }
        func percentile(_ fraction: Double) -> String {
            let rank = max(1, Int((fraction * Double(sorted.count)).rounded(.up)))
            return String(format: "%.2f", sorted[min(rank, sorted.count) - 1])
        }
        let rate = Double(sorted.count) / result.seconds
        let share = result.processCPUMilliseconds > 0 ? result.clientCPUMilliseconds / result.processCPUMilliseconds : 0
        let serverCPU = (result.processCPUMilliseconds - result.clientCPUMilliseconds) / Double(sorted.count)
        print("bookrule serve-content clients=\(clients) requests=\(sorted.count) chapters=\(chapters)"
              + " answer_bytes=\(result.answerBytes) connections=\(result.connections)"
              + " mean_ms=\(String(format: "%.2f", sorted.reduce(0, +) / Double(sorted.count)))"
              + " p50_ms=\(percentile(0.5)) p90_ms=\(percentile(0.9)) p99_ms=\(percentile(0.99))"
              + " max_ms=\(String(format: "%.2f", sorted[sorted.count - 1]))"
              + " requests_per_s=\(String(format: "%.0f", rate))"
              + " server_cpu_ms_per_request=\(String(format: "%.3f", serverCPU))"
              + " client_cpu_share=\(String(format: "%.2f", share)) (target: p99 < 10 ms)")
    }

    static func monotonicMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }

    static func threadCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
}

/// One HTTP/1.1 keep-alive connection to 127.0.0.1:`port` (RawHTTP closes after every request): GETs one
/// target after another on it, reading each answer by its Content-Length, and connects again only after an
/// answer that says `Connection: close` (a connection the server drops is a failure).
struct KeepAliveClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int
    private var fd: Int32 = -1
    private var buffer: [UInt8] = []
    /// What one `recv` reads into, kept: a fresh 64 KiB array per read was the client's largest cost (its zeroing).
    private var chunk = [UInt8](repeating: 0, count: 65536)
    /// How many connections were opened.
    private(set) var connections = 0

    init(port: Int) {
        self.port = port
    }

    /// GETs `target` and returns the answer's body length, after checking it is a success envelope.
    mutating func get(_ target: String) throws -> Int {
        if fd < 0 {
            fd = try RawHTTP(port: port).connected()
            connections += 1
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        try RawHTTP.sendAll(fd, Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8))
        let head = try readHead()
        // Parsed on bytes, not with `lowercased().components(separatedBy:)`: the clients share the server's two
        // cores, and Foundation's string splitting was 5% of the run's samples.
        guard head.starts(with: Array("HTTP/1.1 200".utf8)) else {
            throw Failure(description: "answered \(String(decoding: head.prefix(40), as: UTF8.self)) for \(target)")
        }
        guard let length = Self.headerValue(head, "content-length").flatMap({ Int(String(decoding: $0, as: UTF8.self)) }) else {
            throw Failure(description: "no Content-Length in the answer to \(target)")
        }
        try fill(length)
        let body = buffer.prefix(length)
        // `{"isSuccess":true,` opens every success envelope.
        guard body.starts(with: Array(#"{"isSuccess":true"#.utf8)) else {
            throw Failure(description: "not a success: \(String(decoding: body.prefix(200), as: UTF8.self))")
        }
        buffer.removeFirst(length)
        if let connection = Self.headerValue(head, "connection"), connection.elementsEqual("close".utf8) { close() }
        return length
    }

    /// The value of the header `name` (lowercase) in `head`, its case folded to lowercase ASCII, spaces trimmed.
    static func headerValue(_ head: [UInt8], _ name: String) -> ArraySlice<UInt8>? {
        let wanted = Array(name.utf8)
        var lineStart = 0
        while lineStart < head.count {
            var lineEnd = lineStart
            while lineEnd < head.count && head[lineEnd] != 13 { lineEnd += 1 }
            let line = head[lineStart..<lineEnd]
            if line.count > wanted.count, line[lineStart + wanted.count] == UInt8(ascii: ":"),
               zip(line.prefix(wanted.count), wanted).allSatisfy({ ($0 | 0x20) == $1 }) {
                let value = line.dropFirst(wanted.count + 1).drop { $0 == 32 }
                return ArraySlice(value.map { $0 >= 65 && $0 <= 90 ? $0 | 0x20 : $0 })
            }
            lineStart = lineEnd + 2
        }
        return nil
    }

    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
        buffer = []
    }

    private mutating func readHead() throws -> [UInt8] {
        let end: [UInt8] = [13, 10, 13, 10]
        var searched = 0
        while true {
            if buffer.count >= 4 {
                for index in max(0, searched - 3)...(buffer.count - 4) where buffer[index..<(index + 4)].elementsEqual(end) {
                    let head = Array(buffer[..<index])
                    buffer.removeFirst(index + 4)
                    return head
                }
                searched = buffer.count
            }
            try receive()
        }
    }

    private mutating func fill(_ count: Int) throws {
        while buffer.count < count { try receive() }
    }

    private mutating func receive() throws {
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            close()
            throw Failure(description: "the server closed the connection")
        }
        buffer += chunk[0..<count]
    }
}
