import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

/// Self-tests of `FaultServer`, with the real `CurlTransport` as the client.
@Suite("FaultServer", .timeLimit(.minutes(1 * TestTime.scale)))
struct FaultServerTests {
    /// No environment proxy and short limits (stretched by `TestTime.scale`), so nothing depends on the machine
    /// or can hang.
    static func transport(
        maxBodyBytes: Int = 32 << 20, totalTimeout: Duration = TestTime.bound(.seconds(30))
    ) -> CurlTransport {
        CurlTransport(configuration: .init(
            connectTimeout: TestTime.bound(.seconds(15)), totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes, maxRedirects: 10,
            proxy: "", useEnvironmentProxy: false))
    }

    /// The error `operation` throws, or nil.
    static func error(of operation: () async throws -> Void) async -> (any Error)? {
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }

    /// Seconds since 1970 for an HTTP date in any of the three forms, parsed independently of the server's
    /// formatter (and checking that the weekday name fits the date); nil if the text is malformed.
    static func parseHTTPDate(_ text: String) -> Int? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let weekdays = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"]
        var weekday: String
        var day: Int, month: Int, year: Int, clock: String
        if let match = text.wholeMatch(of: #/([A-Z][a-z]{2}), (\d{2}) ([A-Z][a-z]{2}) (\d{4}) (\d{2}:\d{2}:\d{2}) GMT/#) {
            weekday = String(match.1)
            (day, year, clock) = (Int(match.2)!, Int(match.4)!, String(match.5))
            guard let index = months.firstIndex(of: String(match.3)) else { return nil }
            month = index + 1
        } else if let match = text.wholeMatch(
            of: #/([A-Z][a-z]+day), (\d{2})-([A-Z][a-z]{2})-(\d{2}) (\d{2}:\d{2}:\d{2}) GMT/#) {
            weekday = String(match.1)
            (day, year, clock) = (Int(match.2)!, 2000 + Int(match.4)!, String(match.5))
            guard let index = months.firstIndex(of: String(match.3)) else { return nil }
            month = index + 1
        } else if let match = text.wholeMatch(of: #/([A-Z][a-z]{2}) ([A-Z][a-z]{2}) ([ \d]\d) (\d{2}:\d{2}:\d{2}) (\d{4})/#) {
            weekday = String(match.1)
            (day, year, clock) = (Int(match.3.trimmingCharacters(in: .whitespaces))!, Int(match.5)!, String(match.4))
            guard let index = months.firstIndex(of: String(match.2)) else { return nil }
            month = index + 1
        } else {
            return nil
        }
        // Days since 1970-01-01 by counting (no calendar library, no shared code with the formatter).
        var days = 0
        for y in 1970..<year { days += (y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 366 : 365 }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let lengths = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        days += lengths[0..<(month - 1)].reduce(0, +) + day - 1
        guard weekdays[days % 7].hasPrefix(weekday) else { return nil }
        let parts = clock.split(separator: ":").compactMap { Int($0) }
        return days * 86400 + parts[0] * 3600 + parts[1] * 60 + parts[2]
    }

    @Test("records method, target, headers, body, times and per-target index")
    func recordsRequests() async throws {
        let server = try FaultServer { request, index in
            request.path == "/slow" ? .slow(delay: 0.3, then: .ok("late")) : .ok("\(request.method) #\(index)")
        }
        let transport = Self.transport()
        let first = try await transport.send(HTTPRequest(
            url: server.baseURL + "/hello?x=1", headers: [HTTPHeader("X-Test", "one"), HTTPHeader("Accept-Language", "zh")]))
        #expect(first.status == 200)
        #expect(first.body == Array("GET #0".utf8))
        let second = try await transport.send(HTTPRequest(url: server.baseURL + "/hello?x=1"))
        #expect(second.body == Array("GET #1".utf8))
        let post = try await transport.send(HTTPRequest(
            url: server.baseURL + "/form", method: "POST",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: Array("a=1&b=2".utf8)))
        #expect(post.body == Array("POST #0".utf8))
        _ = try await transport.send(HTTPRequest(url: server.baseURL + "/slow"))
        #expect(await server.waitUntilIdle())

        let records = server.records
        try #require(records.count == 4)
        #expect(records.map(\.method) == ["GET", "GET", "POST", "GET"])
        #expect(records.map(\.target) == ["/hello?x=1", "/hello?x=1", "/form", "/slow"])
        #expect(records[0].path == "/hello" && records[0].request.query == "x=1")
        #expect(records.map(\.targetIndex) == [0, 1, 0, 0])
        #expect(records.map(\.index) == [0, 1, 2, 3])
        #expect(records[0].request.header("x-test") == "one")
        #expect(records[0].headers.value(for: "Accept-Language") == "zh")
        #expect(records[0].headers.value(for: "Host") == "127.0.0.1:\(server.port)")
        #expect(records[1].headers.value(for: "X-Test") == nil)
        #expect(records[2].body == Array("a=1&b=2".utf8))
        #expect(records[2].headers.value(for: "Content-Type") == "application/x-www-form-urlencoded")
        #expect(records.allSatisfy { $0.inFlightAtArrival == 1 && $0.completed && $0.bytesSent > 0 })
        for (earlier, later) in zip(records, records.dropFirst()) {
            let finished = try #require(earlier.finishedAt)
            #expect(earlier.arrivedAt <= finished)
            #expect(finished < later.arrivedAt)  // sequential requests: the server was done before the next came
            #expect(earlier.arrival < later.arrival)
        }
        let slow = try #require(server.requests(matching: "/slow").first)
        #expect(try #require(slow.duration) >= 0.29)
        #expect(try #require(records[0].duration) < 0.29)
        #expect(server.requests(matching: "/hello").count == 2)
        #expect(server.requests(matching: "/nothing").isEmpty)
        #expect(server.maxInFlight == 1)
    }

    @Test("four slow requests at once are all in flight together; sequential ones never overlap")
    func concurrency() async throws {
        let server = try FaultServer { request, _ in .slow(delay: 3.0, then: .ok(request.target)) }
        let transport = Self.transport()
        let started = ContinuousClock.now
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for number in 0..<4 {
                group.addTask {
                    let response = try await transport.send(HTTPRequest(url: server.baseURL + "/c/\(number)"))
                    return String(decoding: response.body, as: UTF8.self)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let elapsed = started.duration(to: .now)
        #expect(Set(bodies) == ["/c/0", "/c/1", "/c/2", "/c/3"])
        #expect(server.maxInFlight == 4)
        #expect(server.records.map(\.inFlightAtArrival).sorted() == [1, 2, 3, 4])
        // All four in flight at once (above) is the proof; the wall clock only says the test was not starved.
        #expect(elapsed >= .milliseconds(2_900), "four 3 s requests took \(elapsed)")

        let sequential = try FaultServer { _, _ in .slow(delay: 0.1, then: .ok("x")) }
        for _ in 0..<3 { _ = try await transport.send(HTTPRequest(url: sequential.baseURL + "/s")) }
        #expect(sequential.maxInFlight == 1)
        #expect(sequential.records.map(\.targetIndex) == [0, 1, 2])
    }

    @Test("503 and 429 with Retry-After in every form round-trip exactly; the dates mean the intended instant")
    func retryAfter() async throws {
        let made = Int(Date().timeIntervalSince1970)
        let values = [
            FaultServer.retryAfter(seconds: 120),
            FaultServer.imfFixdate(secondsFromNow: 90),
            FaultServer.rfc850(secondsFromNow: 90),
            FaultServer.asctime(secondsFromNow: 90),
        ]
        let server = try FaultServer { request, _ in
            let number = Int(request.path.dropFirst("/r/".count)) ?? -1
            if values.indices.contains(number) { return .status(number % 2 == 0 ? 503 : 429, retryAfter: values[number]) }
            return .status(503)
        }
        let transport = Self.transport()
        for (number, value) in values.enumerated() {
            let response = try await transport.send(HTTPRequest(url: server.baseURL + "/r/\(number)"))
            #expect(response.status == (number % 2 == 0 ? 503 : 429))
            #expect(response.headers.filter { $0.name.lowercased() == "retry-after" }.map(\.value) == [value])
        }
        let bare = try await transport.send(HTTPRequest(url: server.baseURL + "/plain"))
        #expect(bare.status == 503)
        #expect(bare.headers.value(for: "Retry-After") == nil)

        #expect(values[0] == "120")
        #expect(FaultServer.retryAfter(seconds: -5) == "0")
        // 90 s after the values were made, whenever this line runs (81 s later under ThreadSanitizer once).
        let intended = made + 90
        for value in values.dropFirst() {
            let parsed = try #require(Self.parseHTTPDate(value), "malformed HTTP date \(value)")
            // A second either way for the clock ticking while they were made; a wrong format would be hours off.
            #expect(abs(parsed - intended) <= 2, "\(value) is \(parsed - intended) s off")
        }
        // RFC 9110's own example, in all three forms, and a single-digit day in asctime.
        #expect(FaultServer.httpDate(.imfFixdate, epochSeconds: 784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(FaultServer.httpDate(.rfc850, epochSeconds: 784_111_777) == "Sunday, 06-Nov-94 08:49:37 GMT")
        #expect(FaultServer.httpDate(.asctime, epochSeconds: 784_111_777) == "Sun Nov  6 08:49:37 1994")
        #expect(FaultServer.httpDate(.imfFixdate, epochSeconds: 951_782_400) == "Tue, 29 Feb 2000 00:00:00 GMT")
        #expect(FaultServer.httpDate(.asctime, epochSeconds: 0) == "Thu Jan  1 00:00:00 1970")
        #expect(FaultServer.httpDate(.imfFixdate, epochSeconds: -1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        for offset in [-86400 * 400, 0, 3600, 86400 * 3000] {
            let epoch = 1_700_000_000 + offset
            for form in FaultServer.DateForm.allCases {
                let text = FaultServer.httpDate(form, epochSeconds: epoch)
                #expect(Self.parseHTTPDate(text) == epoch, "\(form) \(text)")
            }
        }
    }

    @Test("a dropped connection and a body cut short both make CurlTransport throw")
    func drops() async throws {
        let server = try FaultServer { request, _ in
            switch request.path {
            case "/drop": .drop
            case "/mid": .dropMidBody(after: 100, declaredLength: 1000)
            default: .ok("fine")
            }
        }
        let transport = Self.transport()
        for path in ["/drop", "/mid"] {
            let error = await Self.error { _ = try await transport.send(HTTPRequest(url: server.baseURL + path)) }
            guard case .connectionFailed(let url, let message)? = error as? HTTPTransportError else {
                Issue.record("\(path): expected connectionFailed, got \(String(describing: error))")
                continue
            }
            #expect(url == server.baseURL + path)
            #expect(!message.isEmpty)
        }
        #expect(try await transport.send(HTTPRequest(url: server.baseURL + "/ok")).body == Array("fine".utf8))
        #expect(await server.waitUntilIdle())
        let records = server.records
        #expect(records.map(\.target) == ["/drop", "/mid", "/ok"])
        #expect(records.first?.bytesSent == 0)
        #expect((records.dropFirst().first?.bytesSent ?? 0) > 100)
        #expect((records.dropFirst().first?.bytesSent ?? .max) < 1000)
    }

    @Test("a redirect loop /a → /b → /a makes CurlTransport throw redirectLoop")
    func redirectLoop() async throws {
        let server = try FaultServer(respond: FaultServer.redirectLoop())
        let base = server.baseURL
        await #expect(throws: HTTPTransportError.redirectLoop(url: base + "/a", loop: [base + "/a", base + "/b", base + "/a"])) {
            _ = try await Self.transport().send(HTTPRequest(url: base + "/a"))
        }
        #expect(server.records.map(\.target) == ["/a", "/b"])
        let other = try await Self.transport().send(HTTPRequest(url: base + "/elsewhere"))
        #expect(other.status == 404)
    }

    @Test("a redirect to file:///etc/passwd is refused")
    func redirectToFile() async throws {
        let server = try FaultServer { _, _ in .redirect(location: "file:///etc/passwd") }
        await #expect(throws: HTTPTransportError.unsupportedScheme(url: "file:///etc/passwd")) {
            _ = try await Self.transport().send(HTTPRequest(url: server.baseURL + "/go"))
        }
        #expect(server.records.map(\.target) == ["/go"])
    }

    @Test("an 8 MB body, chunked or not, is bodyTooLarge under a 1 MB cap; a small one arrives intact")
    func hugeBodies() async throws {
        let server = try FaultServer { request, _ in
            switch request.path {
            case "/chunked": .huge(bytes: 8 << 20, chunked: true)
            case "/length": .huge(bytes: 8 << 20, chunked: false)
            case "/small-chunked": .huge(bytes: 300_000, chunked: true)
            default: .huge(bytes: 300_000, chunked: false)
            }
        }
        let transport = Self.transport(maxBodyBytes: 1 << 20)
        for path in ["/chunked", "/length"] {
            await #expect(throws: HTTPTransportError.bodyTooLarge(url: server.baseURL + path, limit: 1 << 20)) {
                _ = try await transport.send(HTTPRequest(url: server.baseURL + path))
            }
        }
        let expected = FaultServer.filler(count: 300_000)
        for path in ["/small-chunked", "/small-length"] {
            let response = try await transport.send(HTTPRequest(url: server.baseURL + path))
            #expect(response.body.count == 300_000)
            #expect(response.body == expected, "\(path) body differs from the filler")
        }
        #expect(await server.waitUntilIdle())
        let big = server.requests(matching: "/chunked") + server.requests(matching: "/length")
        #expect(big.count == 2)
        #expect(big.allSatisfy { !$0.completed }, "the server should have stopped streaming when the client left")
    }

    @Test("a trickled body arrives whole, at the scripted pace", .tags(.realTime))
    func trickle() async throws {
        let server = try FaultServer { _, _ in .trickle(bytesPerChunk: 10, interval: 0.2, total: 40) }
        let started = ContinuousClock.now
        let response = try await Self.transport().send(HTTPRequest(url: server.baseURL + "/t"))
        let elapsed = started.duration(to: .now)
        #expect(response.body == FaultServer.filler(count: 40))
        #expect(elapsed >= .milliseconds(580), "four chunks 0.2 s apart arrived in \(elapsed)")
        #expect(elapsed < TestTime.bound(.seconds(20)))
    }

    /// A request to `url` fails because the connection is refused (`couldNotConnect`) or reset as it opens (a
    /// connection the kernel had queued before the socket closed: `connectionFailed`), not by a timeout.
    static func expectRefused(_ transport: CurlTransport, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            _ = try await transport.send(HTTPRequest(url: url))
            Issue.record("\(url) was answered", sourceLocation: sourceLocation)
        } catch let error as HTTPTransportError {
            switch error {
            case .couldNotConnect, .connectionFailed: break
            default: Issue.record("\(url): \(error), not a refused connection", sourceLocation: sourceLocation)
            }
        } catch {
            Issue.record("\(url): \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("after stop(), its lifetime or maxRequests, the server refuses at once")
    func bounded() async throws {
        let transport = Self.transport()
        let server = try FaultServer()
        #expect(try await transport.send(HTTPRequest(url: server.baseURL + "/before")).status == 200)
        #expect(server.isAccepting)
        server.stop()
        #expect(!server.isAccepting)
        // "At once" is the kind of failure: a refused connection (nothing listens), which the kernel answers
        // immediately, not a connect or transfer timeout (a server that still holds its socket). A wall-clock
        // bound here failed under a loaded suite (2.3 s for a refusal) and proved nothing more.
        await Self.expectRefused(transport, server.baseURL + "/after")
        #expect(server.records.map(\.target) == ["/before"])

        let shortLived = try FaultServer(lifetime: 0.3)
        #expect(try await transport.send(HTTPRequest(url: shortLived.baseURL + "/early")).status == 200)
        // Its lifetime stretches with TestTime.scale, and so does this wait.
        try await eventually("the end of the server's lifetime", seconds: 5) { !shortLived.isAccepting }
        await Self.expectRefused(transport, shortLived.baseURL + "/late")

        let limited = try FaultServer(maxRequests: 2)
        for _ in 0..<2 { #expect(try await transport.send(HTTPRequest(url: limited.baseURL + "/n")).status == 200) }
        await Self.expectRefused(transport, limited.baseURL + "/n")
        #expect(limited.records.count == 2)

        // stop() also cuts a request the server is still sitting on.
        let sleepy = try FaultServer { _, _ in .slow(delay: 30, then: .ok("never")) }
        let stopper = Task {
            try await eventually("the request reaching the server") { sleepy.inFlight == 1 }
            sleepy.stop()
        }
        // Cut, not timed out: the transfer ends with the connection (the transport's own limit is 10 s, the
        // answer 30 s away).
        do {
            _ = try await transport.send(HTTPRequest(url: sleepy.baseURL + "/wait"))
            Issue.record("the sleeping request was answered")
        } catch let error as HTTPTransportError {
            if case .timedOut = error { Issue.record("the request timed out instead of being cut: \(error)") }
        }
        try await stopper.value
        #expect(await sleepy.waitUntilIdle())
        #expect(sleepy.records.first?.completed == false)
    }

    @Test("dropping the last reference stops the server")
    func deinitStops() async throws {
        var server: FaultServer? = try FaultServer()
        let url = try #require(server?.baseURL) + "/gone"
        #expect(try await Self.transport().send(HTTPRequest(url: url)).status == 200)
        server = nil
        // Refused, not left hanging until the transport's timeout: told by the kind of failure.
        await Self.expectRefused(Self.transport(), url)
    }
}
