import BookRuleLocking
import Foundation
import BookRuleCheck
import BookRuleHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
private let faultNoSignal = Int32(MSG_NOSIGNAL)
#else
private let faultNoSignal: Int32 = 0
#endif

/// A loopback HTTP/1.1 server for tests that injects faults and records what it received.
///
/// It listens on 127.0.0.1 at a random port, serves every connection on its own thread (so concurrency is real
/// and `maxInFlight` measures it), reads one request per connection and answers it as the test's `respond`
/// script says, always with `Connection: close`. It is bounded: it stops accepting after `lifetime` seconds or
/// `maxRequests` connections, `stop()` (or dropping the last reference) closes the listener at once and cuts
/// connections that are still waiting or streaming, and every socket wait is a `poll` with a timeout (5 s per
/// read or write), so a test can never hang on it.
///
/// Bodies the server makes up (`trickle`, `dropMidBody`, `huge`) are the letters `a`…`z` repeated from the
/// first byte; `FaultServer.filler(count:)` gives the same bytes for comparison.
package final class FaultServer: Sendable {
    /// A request as the server read it off the wire.
    package struct Request: Sendable, Hashable {
        /// The method as sent (`GET`, `POST`, …).
        package var method: String
        /// The request target: path plus query, exactly as sent (`/book/1?page=2`).
        package var target: String
        /// Header fields in the order sent.
        var headers: [HTTPHeader]
        /// The body (by `Content-Length`; empty when there is none).
        var body: [UInt8]

        /// The target without its query.
        package var path: String { target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target }
        /// The query (after `?`), if any.
        package var query: String? {
            guard let mark = target.firstIndex(of: "?") else { return nil }
            return String(target[target.index(after: mark)...])
        }

        /// The value of the first header called `name` (case-insensitive).
        package func header(_ name: String) -> String? { headers.value(for: name) }
    }

    /// What the server saw of one request, and when.
    package struct Record: Sendable {
        /// The request's position among all requests this server read (0-based).
        package var index: Int
        /// The request as read.
        package var request: Request
        /// How many earlier requests had the same `target` (the number passed to `respond`).
        package var targetIndex: Int
        /// When the request had been read completely (monotonic clock).
        package var arrival: ContinuousClock.Instant
        /// When the server was done with the request: just before it wrote the last bytes of its answer (or closed
        /// the connection, for a drop or a cut), so a client that waits for each response before sending the next
        /// request never sees two in flight. Nil while in flight.
        package var finish: ContinuousClock.Instant?
        /// `arrival` in seconds since the server started.
        package var arrivedAt: Double
        /// `finish` in seconds since the server started; nil while in flight.
        package var finishedAt: Double?
        /// Requests in flight when this one arrived, this one included (so at least 1).
        package var inFlightAtArrival: Int
        /// Response bytes (head and body) written to the client; final once `waitUntilIdle()` returns.
        package var bytesSent: Int
        /// Final once `waitUntilIdle()` returns. Whether the whole behaviour was carried out (false when the client went away or the server stopped
        /// first; a `drop` or `dropMidBody` that happened as scripted counts as completed).
        package var completed: Bool

        /// The request's method.
        package var method: String { request.method }
        /// The request's path plus query.
        package var target: String { request.target }
        /// The request's path without the query.
        package var path: String { request.path }
        /// The request's header fields, in order.
        package var headers: [HTTPHeader] { request.headers }
        /// The request's body.
        package var body: [UInt8] { request.body }
        /// Seconds the server spent on this request, once finished.
        package var duration: Double? { finishedAt.map { $0 - arrivedAt } }
    }

    /// How the server answers one request.
    package indirect enum Behaviour: Sendable {
        /// A complete response; `Content-Length` and `Connection: close` are added unless `headers` already
        /// has `Content-Length` or `Transfer-Encoding` (so a test can lie about the length).
        case reply(status: Int, headers: [HTTPHeader], body: [UInt8])
        /// Waits `delay` seconds (interrupted by `stop()`) before behaving as `then`.
        case slow(delay: Double, then: Behaviour)
        /// A 200 with `Content-Length: total` whose body comes `bytesPerChunk` bytes at a time, `interval`
        /// seconds apart.
        case trickle(bytesPerChunk: Int, interval: Double, total: Int)
        /// Closes the connection without answering.
        case drop
        /// A 200 declaring `Content-Length: declaredLength` that closes after `after` body bytes.
        case dropMidBody(after: Int, declaredLength: Int)
        /// A redirect to `location` (sent as is: relative, absolute or another scheme) with an empty body.
        case redirect(status: Int = 302, location: String)
        /// A 200 body of `bytes` bytes, streamed (`Transfer-Encoding: chunked` or `Content-Length`) from one
        /// small buffer, never held in memory; it stops as soon as the client goes away.
        case huge(bytes: Int, chunked: Bool)

        /// A 200 `text/plain; charset=utf-8` reply carrying `text`.
        package static func ok(_ text: String, headers: [HTTPHeader] = []) -> Behaviour {
            .reply(status: 200, headers: [HTTPHeader("Content-Type", "text/plain; charset=utf-8")] + headers,
                   body: Array(text.utf8))
        }

        /// A reply with status `code` (a short text body), with a `Retry-After` field when `retryAfter` is
        /// given; see `FaultServer.retryAfter(seconds:)` and the date helpers for the value.
        package static func status(_ code: Int, retryAfter: String? = nil, headers: [HTTPHeader] = []) -> Behaviour {
            var fields = [HTTPHeader("Content-Type", "text/plain; charset=utf-8")]
            if let retryAfter { fields.append(HTTPHeader("Retry-After", retryAfter)) }
            return .reply(status: code, headers: fields + headers,
                          body: Array("\(code) \(FaultServer.reason(code))\n".utf8))
        }
    }

    /// The port the server listens on.
    package let port: UInt16
    /// The loopback address it listens on (127.0.0.1 unless another was asked for).
    package let host: String
    /// `http://HOST:PORT`, to which a test appends a path.
    package let baseURL: String
    private let core: Core

    /// Starts a server answering each request with what `respond` returns for it; the `Int` is how many
    /// earlier requests had the same target (path plus query), so `index == 0 ? .status(503) : .ok("…")`
    /// scripts a retry. It stops accepting after `lifetime` seconds (times `TestTime.scale`) or `maxRequests`
    /// connections. `host` is a loopback address (127.0.0.2 and so on give a test several hosts).
    package init(
        host: String = "127.0.0.1", lifetime: Double = 60, maxRequests: Int = 500,
        respond: @escaping @Sendable (Request, Int) -> Behaviour = { _, _ in .ok("ok") }
    ) throws {
        core = try Core(host: host, lifetime: TestTime.seconds(lifetime), maxRequests: maxRequests, respond: respond)
        port = core.port
        self.host = host
        baseURL = "http://\(host):\(core.port)"
    }

    deinit {
        core.stop()
    }

    /// Everything read so far, in arrival order (finish fields fill in as requests complete).
    package var records: [Record] { core.state.withLock { $0.records } }

    /// The most requests ever in flight at once.
    package var maxInFlight: Int { core.state.withLock { $0.maxInFlight } }

    /// Requests in flight right now (arrived and not yet finished).
    package var inFlight: Int { core.state.withLock { $0.inFlight } }

    /// Whether the listener is still open (false after `stop()`, the lifetime or `maxRequests`).
    package var isAccepting: Bool { core.state.withLock { $0.listenFD >= 0 } }

    /// The records whose target (path plus query) starts with `pathPrefix`, in arrival order.
    package func requests(matching pathPrefix: String) -> [Record] {
        records.filter { $0.target.hasPrefix(pathPrefix) }
    }

    /// Closes the listener (new connections are refused at once) and cuts connections still waiting or
    /// streaming. Idempotent.
    package func stop() {
        core.stop()
    }

    /// Waits (up to `timeout` seconds) until every accepted connection is closed and fully recorded (finish
    /// times, `bytesSent`, `completed`); true if that happened.
    package func waitUntilIdle(timeout: Double = 5) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(timeout * 1000)))
        while core.state.withLock({ $0.inFlight > 0 || $0.openConnections > 0 }) {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    // MARK: - Scripts and header values

    /// A `respond` script that redirects `first` → `second` → `first` for ever (any other target gets 404).
    package static func redirectLoop(
        _ first: String = "/a", _ second: String = "/b", status: Int = 302
    ) -> @Sendable (Request, Int) -> Behaviour {
        { request, _ in
            switch request.target {
            case first: .redirect(status: status, location: second)
            case second: .redirect(status: status, location: first)
            default: .status(404)
            }
        }
    }

    /// The three date forms HTTP allows (RFC 9110 §5.6.7).
    package enum DateForm: Sendable, CaseIterable {
        /// `Sun, 06 Nov 1994 08:49:37 GMT`, the preferred form.
        case imfFixdate
        /// `Sunday, 06-Nov-94 08:49:37 GMT`, obsolete.
        case rfc850
        /// `Sun Nov  6 08:49:37 1994`, C's asctime, obsolete.
        case asctime
    }

    /// A `Retry-After` in delta-seconds form: `"120"`.
    package static func retryAfter(seconds: Int) -> String { String(max(0, seconds)) }

    /// The wall-clock instant `secondsFromNow` from now as an IMF-fixdate (rounded to the second).
    package static func imfFixdate(secondsFromNow: Double) -> String { httpDate(.imfFixdate, secondsFromNow: secondsFromNow) }

    /// The wall-clock instant `secondsFromNow` from now in RFC 850 form (rounded to the second).
    package static func rfc850(secondsFromNow: Double) -> String { httpDate(.rfc850, secondsFromNow: secondsFromNow) }

    /// The wall-clock instant `secondsFromNow` from now in asctime form (rounded to the second).
    package static func asctime(secondsFromNow: Double) -> String { httpDate(.asctime, secondsFromNow: secondsFromNow) }

    /// The wall-clock instant `secondsFromNow` from now in `form`.
    package static func httpDate(_ form: DateForm, secondsFromNow: Double) -> String {
        httpDate(form, epochSeconds: Int((Date().timeIntervalSince1970 + secondsFromNow).rounded()))
    }

    /// `epochSeconds` (since 1970-01-01 00:00:00 UTC) in `form`: English names, GMT, no locale involved.
    package static func httpDate(_ form: DateForm, epochSeconds: Int) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86400 : -((-epochSeconds + 86399) / 86400)
        let secondOfDay = epochSeconds - days * 86400
        let (year, month, day) = civil(fromDays: days)
        let weekday = ((days + 4) % 7 + 7) % 7  // 1970-01-01 was a Thursday; 0 is Sunday.
        let shortDays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let longDays = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        func four(_ value: Int) -> String { String(repeating: "0", count: max(0, 4 - String(value).count)) + "\(value)" }
        let time = "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))"
        let monthName = months[month - 1]
        switch form {
        case .imfFixdate:
            return "\(shortDays[weekday]), \(two(day)) \(monthName) \(four(year)) \(time) GMT"
        case .rfc850:
            return "\(longDays[weekday]), \(two(day))-\(monthName)-\(two(year % 100)) \(time) GMT"
        case .asctime:
            return "\(shortDays[weekday]) \(monthName) \(day < 10 ? " \(day)" : "\(day)") \(time) \(four(year))"
        }
    }

    /// Year, month (1–12) and day for a count of days since 1970-01-01 (Howard Hinnant's algorithm).
    private static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The body bytes the server makes up for `trickle`, `dropMidBody` and `huge`: `a`…`z` repeated.
    package static func filler(count: Int) -> [UInt8] {
        (0..<max(0, count)).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }

    /// One streaming buffer: a whole number of alphabets, so every chunk starts at `a`.
    fileprivate static let fillerChunk = filler(count: 26 * 2520)

    /// The reason phrase for `status`.
    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}

// MARK: - The machinery

extension FaultServer {
    package enum SetupError: Error {
        case failed(String, Int32)
    }

    /// Mutable server state, behind `Core.state`.
    fileprivate struct State {
        var listenFD: Int32
        var wakeWriteFD: Int32
        var stopped = false
        var accepted = 0
        var records: [Record] = []
        var inFlight = 0
        var maxInFlight = 0
        var openConnections = 0
        var perTarget: [String: Int] = [:]
    }

    /// What the threads share; the accept and connection threads keep it alive, not the `FaultServer`, so
    /// dropping the server's last reference runs its `deinit` (which stops everything).
    fileprivate final class Core: Sendable {
        let port: UInt16
        let state: Locked<State>
        /// Read end of the wake pipe: it becomes readable (hang-up) once `stop()` closes the write end, which
        /// wakes every `poll` in the server.
        let wakeReadFD: Int32
        let started = ContinuousClock.now
        let respond: @Sendable (Request, Int) -> Behaviour

        static let ioTimeoutMilliseconds: Int32 = 5000

        init(host: String, lifetime: Double, maxRequests: Int,
             respond: @escaping @Sendable (Request, Int) -> Behaviour) throws {
            self.respond = respond
            var pipeFDs: [Int32] = [-1, -1]
            guard pipe(&pipeFDs) == 0 else { throw SetupError.failed("pipe", errno) }
            for descriptor in pipeFDs { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            let fd: Int32
            do {
                (fd, port) = try LoopbackListener.open(backlog: 64, host: host)
            } catch {
                close(pipeFDs[0])
                close(pipeFDs[1])
                throw error
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            wakeReadFD = pipeFDs[0]
            state = Locked(State(listenFD: fd, wakeWriteFD: pipeFDs[1]))

            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(max(0, lifetime) * 1000)))
            let thread = Thread { [self] in
                self.acceptLoop(until: deadline, maxRequests: maxRequests)
            }
            thread.name = "FaultServer.accept"
            thread.start()
        }

        deinit {
            state.withLock { state in
                if state.listenFD >= 0 { close(state.listenFD) }
                if state.wakeWriteFD >= 0 { close(state.wakeWriteFD) }
            }
            close(wakeReadFD)
        }

        /// Closes the listener and wakes every wait so in-flight connections are cut.
        func stop() {
            state.withLock { state in
                state.stopped = true
                if state.listenFD >= 0 {
                    close(state.listenFD)
                    state.listenFD = -1
                }
                if state.wakeWriteFD >= 0 {
                    close(state.wakeWriteFD)
                    state.wakeWriteFD = -1
                }
            }
        }

        /// Closes the listener only (connections in flight go on).
        private func stopAccepting() {
            state.withLock { state in
                if state.listenFD >= 0 {
                    close(state.listenFD)
                    state.listenFD = -1
                }
            }
        }

        private func acceptLoop(until deadline: ContinuousClock.Instant, maxRequests: Int) {
            while true {
                let remaining = Self.milliseconds(until: deadline)
                if remaining <= 0 {
                    stop()
                    return
                }
                // The listener is only closed under the lock, and accept only happens under it after checking
                // it is still open, so a reused descriptor number can never be accepted on.
                let listenFD = state.withLock { $0.listenFD }
                if listenFD < 0 { return }
                var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeReadFD, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&fds, 2, min(remaining, 1000))
                if ready < 0 && errno != EINTR { return }
                if fds[1].revents != 0 { return }
                if ready <= 0 || fds[0].revents == 0 { continue }
                let (client, reachedLimit) = state.withLock { state -> (Int32, Bool) in
                    guard !state.stopped, state.listenFD == listenFD, state.accepted < maxRequests else {
                        return (-1, state.accepted >= maxRequests)
                    }
                    let client = accept(listenFD, nil, nil)
                    if client >= 0 {
                        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                        state.accepted += 1
                        state.openConnections += 1
                    }
                    return (client, state.accepted >= maxRequests)
                }
                if client >= 0 {
                    let thread = Thread { [self] in
                        self.serve(client)
                    }
                    thread.name = "FaultServer.connection"
                    thread.start()
                }
                if reachedLimit {
                    stopAccepting()
                    return
                }
            }
        }

        // MARK: One connection

        private func serve(_ client: Int32) {
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            guard let request = readRequest(client) else {
                close(client)
                state.withLock { $0.openConnections -= 1 }
                return
            }
            let now = ContinuousClock.now
            let arrivedAt = Self.seconds(started.duration(to: now))
            let (recordIndex, targetIndex) = state.withLock { state -> (Int, Int) in
                state.inFlight += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                let targetIndex = state.perTarget[request.target, default: 0]
                state.perTarget[request.target] = targetIndex + 1
                state.records.append(Record(
                    index: state.records.count, request: request, targetIndex: targetIndex, arrival: now, finish: nil,
                    arrivedAt: arrivedAt, finishedAt: nil, inFlightAtArrival: state.inFlight, bytesSent: 0,
                    completed: false))
                return (state.records.count - 1, targetIndex)
            }
            let connection = Connection(fd: client, wakeFD: wakeReadFD)
            connection.onFinish = { [self] in
                let end = ContinuousClock.now
                let finishedAt = Self.seconds(started.duration(to: end))
                state.withLock { state in
                    state.inFlight -= 1
                    state.records[recordIndex].finish = end
                    state.records[recordIndex].finishedAt = finishedAt
                }
            }
            let completed = perform(respond(request, targetIndex), for: request, on: connection)
            connection.finish()
            close(client)
            state.withLock { state in
                state.records[recordIndex].bytesSent = connection.sent
                state.records[recordIndex].completed = completed
                state.openConnections -= 1
            }
        }

        /// Carries out `behaviour`; false if the client went away or the server stopped first.
        private func perform(_ behaviour: Behaviour, for request: Request, on connection: Connection) -> Bool {
            switch behaviour {
            case .reply(let status, let headers, let body):
                let framed = headers.contains { ["content-length", "transfer-encoding"].contains($0.name.lowercased()) }
                let head = Self.head(status, headers + (framed ? [] : [HTTPHeader("Content-Length", "\(body.count)")]))
                return connection.write(head + (request.method == "HEAD" ? [] : body), last: true)
            case .slow(let delay, let then):
                return connection.pause(seconds: delay) && perform(then, for: request, on: connection)
            case .trickle(let bytesPerChunk, let interval, let total):
                guard connection.write(Self.head(200, [HTTPHeader("Content-Length", "\(max(0, total))")]),
                                       last: total <= 0) else {
                    return false
                }
                let all = FaultServer.filler(count: total)
                var offset = 0
                while offset < all.count {
                    if offset > 0, !connection.pause(seconds: interval) { return false }
                    let end = min(all.count, offset + max(1, bytesPerChunk))
                    guard connection.write(Array(all[offset..<end]), last: end == all.count) else { return false }
                    offset = end
                }
                return true
            case .drop:
                return true
            case .dropMidBody(let after, let declaredLength):
                return connection.write(Self.head(200, [HTTPHeader("Content-Length", "\(max(0, declaredLength))")])
                    + FaultServer.filler(count: min(after, declaredLength)))
            case .redirect(let status, let location):
                return connection.write(Self.head(status, [HTTPHeader("Location", location),
                                                           HTTPHeader("Content-Length", "0")]), last: true)
            case .huge(let bytes, let chunked):
                let framing = chunked ? HTTPHeader("Transfer-Encoding", "chunked") : HTTPHeader("Content-Length", "\(bytes)")
                guard connection.write(Self.head(200, [HTTPHeader("Content-Type", "text/plain"), framing]),
                                       last: !chunked && bytes <= 0) else {
                    return false
                }
                var remaining = max(0, bytes)
                let chunk = FaultServer.fillerChunk
                while remaining > 0 {
                    let count = min(remaining, chunk.count)
                    let piece = count == chunk.count ? chunk : Array(chunk[0..<count])
                    let framed = chunked ? Array((String(count, radix: 16) + "\r\n").utf8) + piece + [13, 10] : piece
                    guard connection.write(framed, last: !chunked && remaining == count) else { return false }
                    remaining -= count
                }
                return chunked ? connection.write(Array("0\r\n\r\n".utf8), last: true) : true
            }
        }

        private static func head(_ status: Int, _ headers: [HTTPHeader]) -> [UInt8] {
            var text = "HTTP/1.1 \(status) \(FaultServer.reason(status))\r\n"
            for header in headers { text += "\(header.name): \(header.value)\r\n" }
            text += "Connection: close\r\n\r\n"
            return Array(text.utf8)
        }

        /// Reads one request (head, then a `Content-Length` body); nil if the client sent none in time.
        private func readRequest(_ client: Int32) -> Request? {
            let connection = Connection(fd: client, wakeFD: wakeReadFD)
            return WireRequestReader.read { connection.read() }.map {
                Request(method: $0.method, target: $0.target, headers: $0.headers, body: $0.body)
            }
        }

        static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
            let seconds = FaultServer.Core.seconds(ContinuousClock.now.duration(to: deadline))
            return Int32(clamping: Int((seconds * 1000).rounded(.up)))
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        }
    }

    /// One client socket, with every wait also watching the wake pipe.
    fileprivate final class Connection {
        let fd: Int32
        let wakeFD: Int32
        /// Bytes written so far.
        var sent = 0
        /// Called once, by `finish()`.
        var onFinish: (() -> Void)?

        init(fd: Int32, wakeFD: Int32) {
            self.fd = fd
            self.wakeFD = wakeFD
        }

        /// Waits for `events` on the socket: true when ready, false on timeout, error or `stop()`.
        private func wait(for events: Int32, milliseconds: Int32 = Core.ioTimeoutMilliseconds) -> Bool {
            var fds = [pollfd(fd: fd, events: Int16(events), revents: 0),
                       pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
            while true {
                let ready = poll(&fds, 2, milliseconds)
                if ready < 0 && errno == EINTR { continue }
                return ready > 0 && fds[1].revents == 0 && fds[0].revents != 0
            }
        }

        /// Up to 64 KB from the client; empty at end of stream, nil on error, timeout or `stop()`.
        func read() -> [UInt8]? {
            guard wait(for: Int32(POLLIN)) else { return nil }
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 { return errno == EAGAIN || errno == EWOULDBLOCK ? read() : nil }
            return Array(chunk[0..<count])
        }

        /// Marks the request finished (the first call only).
        func finish() {
            let hook = onFinish
            onFinish = nil
            hook?()
        }

        /// Sends all of `bytes`; false once the client has gone (no SIGPIPE), a write stalls for 5 s, or
        /// `stop()` is called. With `last`, the request is marked finished first, so the client cannot have the
        /// whole answer before the server counts it done.
        func write(_ bytes: [UInt8], last: Bool = false) -> Bool {
            if last { finish() }
            var offset = 0
            while offset < bytes.count {
                guard wait(for: Int32(POLLOUT)) else { return false }
                let count = bytes.withUnsafeBytes {
                    send(fd, $0.baseAddress! + offset, bytes.count - offset, faultNoSignal | Int32(MSG_DONTWAIT))
                }
                if count < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
                    return false
                }
                offset += count
                sent += count
            }
            return true
        }

        /// Sleeps `seconds`; false if `stop()` cut it short.
        func pause(seconds: Double) -> Bool {
            let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int(max(0, seconds) * 1000)))
            while true {
                let remaining = Core.milliseconds(until: deadline)
                if remaining <= 0 { return true }
                var waker = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
                let ready = poll(&waker, 1, remaining)
                if ready > 0 { return false }
            }
        }
    }
}
