import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
import BookRuleDocument
import TestSupport

/// A 200 reply carrying `body`.
private func ok(_ body: String, headers: [(String, String)] = []) -> [UInt8] {
    LoopbackServer.reply(200, "OK", headers: headers, body: Array(body.utf8))
}

/// Every test talks to `LoopbackServer`s on 127.0.0.1 only; a proxy is another loopback server that answers
/// instead of forwarding.
@Suite("CurlTransport", .timeLimit(.minutes(1 * TestTime.scale)))
struct CurlTransportTests {
    /// No environment proxy, limits so a test never hangs: tests must not depend on the machine's settings. The
    /// default limits are backstops, not what a test checks (those that check a timeout give their own): 30 s,
    /// since 10 s ran out under load with the test's server still to be scheduled, stretched by `TestTime.scale`.
    static func transport(
        maxBodyBytes: Int = 32 << 20, totalTimeout: Duration = TestTime.bound(.seconds(30)), maxRedirects: Int = 10,
        proxy: String? = "", noProxy: String? = nil, acceptEncoding: String? = "gzip, deflate"
    ) -> CurlTransport {
        CurlTransport(configuration: .init(
            connectTimeout: TestTime.bound(.seconds(15)), totalTimeout: totalTimeout, maxBodyBytes: maxBodyBytes,
            maxRedirects: maxRedirects, proxy: proxy, noProxy: noProxy, useEnvironmentProxy: false,
            acceptEncoding: acceptEncoding))
    }

    /// The error `operation` throws (or nil), for tests that check more than its type.
    static func error(of operation: () async throws -> Void) async -> (any Error)? {
        do {
            try await operation()
            return nil
        } catch {
            return error
        }
    }

    @Test("headers go out in order with a browser User-Agent (never curl's); a request's own UA is kept")
    func headersAndUserAgent() async throws {
        let server = try LoopbackServer(maxConnections: 2) { _, _ in
            ok("hello", headers: [("Set-Cookie", "a=1"), ("X-Order", "first"), ("Set-Cookie", "b=2"),
                                  ("X-Order", "second")])
        }
        let transport = Self.transport()
        let response = try await transport.send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/page",
            headers: [HTTPHeader("X-First", "1"), HTTPHeader("Accept-Language", "zh-CN"),
                      HTTPHeader("X-Repeat", "a"), HTTPHeader("X-Repeat", "b"), HTTPHeader("X-Empty", "")]))
        #expect(response.status == 200)
        #expect(response.url == "http://127.0.0.1:\(server.port)/page")
        #expect(response.body == Array("hello".utf8))
        let names = response.headers.map { $0.name.lowercased() }
        #expect(names.filter { ["set-cookie", "x-order"].contains($0) } == ["set-cookie", "x-order", "set-cookie", "x-order"])
        #expect(response.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1", "b=2"])
        #expect(response.headers.filter { $0.name == "X-Order" }.map(\.value) == ["first", "second"])

        _ = try await transport.send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/own", headers: [HTTPHeader("User-Agent", "MyReader/2.0")]))
        let requests = server.requests
        try #require(requests.count == 2)
        let sent = requests[0].headers
        let custom = sent.filter { $0.name.hasPrefix("X-") || $0.name == "Accept-Language" }
        #expect(custom.map(\.name) == ["X-First", "Accept-Language", "X-Repeat", "X-Repeat", "X-Empty"])
        #expect(custom.map(\.value) == ["1", "zh-CN", "a", "b", ""])
        #expect(sent.filter { $0.name.lowercased() == "user-agent" }.map(\.value) == [CurlTransport.defaultUserAgent])
        #expect(sent.value(for: "Accept-Encoding") == "gzip, deflate")
        for header in sent {
            #expect(!header.value.lowercased().contains("curl"), "header leaks curl: \(header.name): \(header.value)")
        }
        #expect(requests[1].headers.filter { $0.name.lowercased() == "user-agent" }.map(\.value) == ["MyReader/2.0"])
    }

    @Test("POST sends the method and exact body bytes, without Expect: 100-continue for a large body")
    func post() async throws {
        let server = try LoopbackServer(maxConnections: 3) { request, _ in
            LoopbackServer.reply(200, "OK", body: request.body)
        }
        let transport = Self.transport()
        let small: [UInt8] = [0x6B, 0x3D, 0xB5, 0x00, 0xDA, 0xD2, 0xBB]
        let response = try await transport.send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/search", method: "post",
            headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: small))
        #expect(response.body == small)
        let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let echoed = try await transport.send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/upload", method: "POST", body: large))
        #expect(echoed.body == large)
        // libcurl would wait a second for a 100 Continue: the request carrying no Expect (checked below) is the
        // reliable sign, elapsed time on a loaded machine is not.
        let empty = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/ping", method: "POST"))
        #expect(empty.body.isEmpty)
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests.map(\.method) == ["POST", "POST", "POST"])
        #expect(requests[2].headers.value(for: "Content-Length") == "0")
        #expect(requests[0].body == small)
        #expect(requests[0].headers.value(for: "Content-Length") == "7")
        #expect(requests[1].headers.value(for: "Expect") == nil)
    }

    @Test("CJK, spaces and | are percent-encoded on the wire; existing escapes are kept")
    func percentEncoding() async throws {
        let server = try LoopbackServer(maxConnections: 1) { _, _ in LoopbackServer.reply(200, "OK") }
        let url = "http://127.0.0.1:\(server.port)/书/第 1章.html?q=中文|x&done=%E4%B8%AD"
        let response = try await Self.transport().send(HTTPRequest(url: url))
        let expected = "/%E4%B9%A6/%E7%AC%AC%201%E7%AB%A0.html?q=%E4%B8%AD%E6%96%87%7Cx&done=%E4%B8%AD"
        #expect(server.requests.first?.target == expected)
        #expect(response.url == "http://127.0.0.1:\(server.port)" + expected)
    }

    @Test("a redirect chain is followed, cookies set on the way are carried, and the final URL is reported")
    func redirectChain() async throws {
        let server = try LoopbackServer(maxConnections: 3) { request, port in
            switch request.target {
            case "/start":
                return LoopbackServer.reply(302, "Found", headers: [("Location", "/middle?x=1"), ("Set-Cookie", "sid=abc; Path=/")])
            case "/middle?x=1":
                return LoopbackServer.reply(301, "Moved", headers: [("Location", "http://127.0.0.1:\(port)/final.html")])
            default:
                return ok("final page")
            }
        }
        let store = CookieStore()
        let response = try await Self.transport().send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/start",
            headers: [HTTPHeader("Cookie", "lang=zh"), HTTPHeader("X-After", "1"), HTTPHeader("Cookie", "sid=old")],
            cookies: store))
        #expect(response.status == 200)
        #expect(response.url == "http://127.0.0.1:\(server.port)/final.html")
        #expect(response.body == Array("final page".utf8))
        // The cookie set on the way went into the request's store, for the URL that set it.
        #expect(store.cookies(for: "http://127.0.0.1:\(server.port)/other") == ["sid=abc"])
        let requests = server.requests
        #expect(requests.map(\.target) == ["/start", "/middle?x=1", "/final.html"])
        #expect(requests[0].headers.filter { $0.name == "Cookie" }.map(\.value) == ["lang=zh", "sid=old"])
        for request in requests.dropFirst() {
            #expect(request.headers.filter { $0.name == "Cookie" }.map(\.value) == ["lang=zh; sid=abc"])
            let names = request.headers.map(\.name).filter { $0 == "Cookie" || $0 == "X-After" }
            #expect(names == ["Cookie", "X-After"])
        }
        #expect(requests.allSatisfy { $0.headers.value(for: "User-Agent") == CurlTransport.defaultUserAgent })
    }

    @Test("Cookie and Authorization stay with their host; carried cookies resume when the chain comes back")
    func crossHostRedirect() async throws {
        // "localhost" and "127.0.0.1" are the same machine but different hosts to cookies and credentials.
        let other = try LoopbackServer(maxConnections: 1) { request, _ in
            let homePort = request.target.split(separator: "=").last ?? ""
            return LoopbackServer.reply(302, "Found", headers: [
                ("Location", "http://127.0.0.1:\(homePort)/back"), ("Set-Cookie", "elsewhere=1"),
            ])
        }
        let home = try LoopbackServer(maxConnections: 2) { request, port in
            if request.target == "/start" {
                return LoopbackServer.reply(302, "Found", headers: [
                    ("Location", "http://localhost:\(other.port)/hop?home=\(port)"), ("Set-Cookie", "sid=abc"),
                ])
            }
            return ok("home again")
        }
        let store = CookieStore()
        let response = try await Self.transport().send(HTTPRequest(
            url: "http://127.0.0.1:\(home.port)/start",
            headers: [HTTPHeader("Authorization", "Bearer t"), HTTPHeader("Cookie", "mine=1")], cookies: store))
        #expect(response.url == "http://127.0.0.1:\(home.port)/back")
        #expect(response.body == Array("home again".utf8))
        let hop = try #require(other.requests.first)
        #expect(hop.headers.value(for: "Authorization") == nil)
        #expect(hop.headers.value(for: "Cookie") == nil)
        let back = try #require(home.requests.last)
        #expect(back.headers.value(for: "Authorization") == nil)
        #expect(back.headers.value(for: "Cookie") == "sid=abc")
        #expect(store.cookies(for: "http://localhost/") == ["elsewhere=1"])
        #expect(store.cookies(for: "http://127.0.0.1/") == ["sid=abc"])
    }

    @Test("a Domain cookie set by login.example.com on a 302 reaches www.example.com and is kept; Domain=com is refused")
    func redirectCookieAcrossTheDomain() async throws {
        // The "proxy" is the site: it answers each absolute-form request by its host, so no name is resolved.
        let site = try LoopbackServer(maxConnections: 2) { request, _ in
            if request.target.hasPrefix("http://login.example.com/") {
                return LoopbackServer.reply(302, "Found", headers: [
                    ("Location", "http://www.example.com/book/1"), ("Set-Cookie", "sid=s1; Domain=example.com; Path=/"),
                    ("Set-Cookie", "super=1; Domain=com; Path=/"), ("Set-Cookie", "uk=1; Domain=co.uk"),
                ])
            }
            return ok("book page")
        }
        let jar = CookieJar(upstream: Self.transport(proxy: "http://127.0.0.1:\(site.port)"))
        let response = try await jar.send(HTTPRequest(url: "http://login.example.com/login"))
        #expect(response.url == "http://www.example.com/book/1")
        #expect(response.body == Array("book page".utf8))
        let requests = site.requests
        #expect(requests.map(\.target) == ["http://login.example.com/login", "http://www.example.com/book/1"])
        #expect(requests.last?.headers.value(for: "Cookie") == "sid=s1")
        #expect(jar.cookies(for: "http://www.example.com/") == ["sid=s1"])
        #expect(jar.cookies(for: "http://m.example.com/other") == ["sid=s1"])
        #expect(jar.cookies(for: "http://elsewhere.com/") == [])
    }

    @Test("a HEAD answer announcing a large body is not refused")
    func headIgnoresContentLength() async throws {
        let server = try LoopbackServer(maxConnections: 1) { _, _ in
            Array("HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\nConnection: close\r\n\r\n".utf8)
        }
        let response = try await Self.transport(maxBodyBytes: 1000).send(
            HTTPRequest(url: "http://127.0.0.1:\(server.port)/file", method: "HEAD"))
        #expect(response.status == 200)
        #expect(response.headers.value(for: "Content-Length") == "5000000")
        #expect(server.requests.first?.method == "HEAD")
    }

    @Test("303 turns POST into GET without body; 307 keeps POST and its body")
    func redirectMethods() async throws {
        let server = try LoopbackServer(maxConnections: 4) { request, _ in
            switch request.target {
            case "/see-other": return LoopbackServer.reply(303, "See Other", headers: [("Location", "/result")])
            case "/temporary": return LoopbackServer.reply(307, "Temporary Redirect", headers: [("Location", "/result")])
            default: return ok(request.method)
            }
        }
        let transport = Self.transport()
        let base = "http://127.0.0.1:\(server.port)"
        let form = [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")]
        let viaGet = try await transport.send(HTTPRequest(url: base + "/see-other", method: "POST", headers: form, body: Array("a=1".utf8)))
        #expect(viaGet.body == Array("GET".utf8))
        let viaPost = try await transport.send(HTTPRequest(url: base + "/temporary", method: "POST", headers: form, body: Array("b=2".utf8)))
        #expect(viaPost.body == Array("POST".utf8))
        let requests = server.requests
        try #require(requests.count == 4)
        #expect(requests.map(\.method) == ["POST", "GET", "POST", "POST"])
        #expect(requests[1].body.isEmpty)
        #expect(requests[1].headers.value(for: "Content-Type") == nil)
        #expect(requests[3].body == Array("b=2".utf8))
        #expect(requests[3].headers.value(for: "Content-Type") == "application/x-www-form-urlencoded")
    }

    @Test("a redirect loop is an error naming the loop; a self-redirect that sets a cookie is not a loop")
    func redirectLoop() async throws {
        let server = try LoopbackServer(maxConnections: 8) { request, _ in
            switch request.target {
            case "/a": return LoopbackServer.reply(302, "Found", headers: [("Location", "/b")])
            case "/b": return LoopbackServer.reply(302, "Found", headers: [("Location", "/a")])
            case "/self": return LoopbackServer.reply(302, "Found", headers: [("Location", "/self")])
            default:
                if request.headers.value(for: "Cookie") == "ok=1" { return ok("checked") }
                return LoopbackServer.reply(302, "Found", headers: [("Location", "/check"), ("Set-Cookie", "ok=1")])
            }
        }
        let base = "http://127.0.0.1:\(server.port)"
        let transport = Self.transport()
        await #expect(throws: HTTPTransportError.redirectLoop(url: base + "/a", loop: [base + "/a", base + "/b", base + "/a"])) {
            _ = try await transport.send(HTTPRequest(url: base + "/a"))
        }
        await #expect(throws: HTTPTransportError.redirectLoop(url: base + "/self", loop: [base + "/self", base + "/self"])) {
            _ = try await transport.send(HTTPRequest(url: base + "/self"))
        }
        let error = HTTPTransportError.redirectLoop(url: base + "/a", loop: [base + "/a", base + "/b", base + "/a"])
        #expect(error.description.contains("\(base)/a -> \(base)/b -> \(base)/a"))
        let checked = try await transport.send(HTTPRequest(url: base + "/check"))
        #expect(checked.body == Array("checked".utf8))
        #expect(server.requests.map(\.target) == ["/a", "/b", "/self", "/check", "/check"])
    }

    @Test("more than maxRedirects hops is tooManyRedirects")
    func tooManyRedirects() async throws {
        let server = try LoopbackServer(maxConnections: 10) { request, _ in
            let number = Int(request.target.dropFirst(3)) ?? 0
            return LoopbackServer.reply(302, "Found", headers: [("Location", "/r/\(number + 1)")])
        }
        let url = "http://127.0.0.1:\(server.port)/r/0"
        await #expect(throws: HTTPTransportError.tooManyRedirects(url: url, limit: 3)) {
            _ = try await Self.transport(maxRedirects: 3).send(HTTPRequest(url: url))
        }
        #expect(server.requests.map(\.target) == ["/r/0", "/r/1", "/r/2", "/r/3"])
    }

    @Test("a redirect to file:///etc/passwd is refused, and so is a file: URL")
    func redirectToFileRefused() async throws {
        let server = try LoopbackServer(maxConnections: 3) { _, _ in
            LoopbackServer.reply(302, "Found", headers: [("Location", "file:///etc/passwd")], body: Array("moved".utf8))
        }
        let transport = Self.transport()
        await #expect(throws: HTTPTransportError.unsupportedScheme(url: "file:///etc/passwd")) {
            _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/go"))
        }
        #expect(server.requests.count == 1)
        await #expect(throws: HTTPTransportError.unsupportedScheme(url: "file:///etc/passwd")) {
            _ = try await transport.send(HTTPRequest(url: "file:///etc/passwd"))
        }
        await #expect(throws: HTTPTransportError.unsupportedScheme(url: "ftp://127.0.0.1/x")) {
            _ = try await transport.send(HTTPRequest(url: "ftp://127.0.0.1/x"))
        }
        #expect(HTTPTransportError.unsupportedScheme(url: "file:///etc/passwd").description
            == "refusing to fetch file:///etc/passwd: only http and https URLs are supported")
    }

    @Test("a body of exactly the cap is accepted; one byte more is bodyTooLarge")
    func bodyCapBoundary() async throws {
        let server = try LoopbackServer(maxConnections: 2) { request, _ in
            LoopbackServer.reply(200, "OK", body: [UInt8](repeating: 0x61, count: request.target == "/fits" ? 1000 : 1001))
        }
        let transport = Self.transport(maxBodyBytes: 1000)
        let fits = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/fits"))
        #expect(fits.body.count == 1000)
        await #expect(throws: HTTPTransportError.bodyTooLarge(url: "http://127.0.0.1:\(server.port)/over", limit: 1000)) {
            _ = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/over"))
        }
    }

    @Test("a 5 MB body with Content-Length is refused at the headers under a 1 MB cap")
    func oversizedContentLength() async throws {
        let body = [UInt8](repeating: 0x62, count: 5 << 20)
        let server = try LoopbackServer(maxConnections: 1) { _, _ in LoopbackServer.reply(200, "OK", body: body) }
        let transport = Self.transport(maxBodyBytes: 1 << 20)
        let url = "http://127.0.0.1:\(server.port)/big"
        await #expect(throws: HTTPTransportError.bodyTooLarge(url: url, limit: 1 << 20)) {
            _ = try await transport.send(HTTPRequest(url: url))
        }
        let peak = transport.statistics.withLock { $0.peakBodyCapacity }
        #expect(peak < 64 << 10, "body storage grew to \(peak) bytes before the Content-Length check")
    }

    @Test("a chunked body and a read-until-close body are stopped at the cap while streaming", .tags(.realTime))
    func oversizedStreaming() async throws {
        let chunk = [UInt8](repeating: 0x63, count: 64 << 10)
        let total = 48 << 20
        let server = try LoopbackServer(maxConnections: 2) { request, _, writer in
            let chunked = request.target == "/chunked"
            let head = chunked ? "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                               : "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n"
            guard writer.write(Array(head.utf8)) else { return }
            var sent = 0
            while sent < total {
                let framed = chunked ? Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10] : chunk
                guard writer.write(framed) else { return }
                sent += chunk.count
            }
            if chunked { writer.write(Array("0\r\n\r\n".utf8)) }
        }
        let limit = 1 << 20
        for path in ["/chunked", "/until-close"] {
            let transport = Self.transport(maxBodyBytes: limit)
            let url = "http://127.0.0.1:\(server.port)\(path)"
            let started = ContinuousClock.now
            await #expect(throws: HTTPTransportError.bodyTooLarge(url: url, limit: limit)) {
                _ = try await transport.send(HTTPRequest(url: url))
            }
            // The cap is proved by the peak below; the bound only catches a transfer that runs on (with room for
            // a loaded or paused CI machine).
            #expect(ContinuousClock.now - started < TestTime.bound(.seconds(20)))
            let peak = transport.statistics.withLock { $0.peakBodyCapacity }
            // The allocator may round the last reservation up by a page or so; doubling would reach 2 MiB.
            #expect(peak <= limit + limit / 16, "\(path): body storage reached \(peak) bytes, over the \(limit)-byte cap")
            #expect(peak > 0)
        }
        try await eventually("the server's end of both connections") { server.closedConnections == 2 }
        let sent = server.bytesSent
        #expect(sent.count == 2)
        #expect(sent.allSatisfy { $0 < total / 2 }, "the server got to write \(sent) bytes: the client kept reading")
    }

    @Test("the total timeout stops a server that trickles bytes", .tags(.realTime))
    func totalTimeout() async throws {
        let closed = Locked<Bool?>(nil)
        let server = try LoopbackServer(maxConnections: 1) { _, _, writer in
            guard writer.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n".utf8)) else { return }
            // Without the deadline this would trickle for 10 s; the bounds below leave room for a loaded machine.
            for _ in 0..<600 {
                guard writer.write([0x2E]) else { break }
                if writer.waitForClose(seconds: 0.05) {
                    closed.withLock { $0 = true }
                    return
                }
            }
            closed.withLock { $0 = false }
        }
        let url = "http://127.0.0.1:\(server.port)/slow"
        let started = ContinuousClock.now
        await #expect(throws: HTTPTransportError.timedOut(url: url, seconds: 0.3)) {
            _ = try await Self.transport(totalTimeout: .milliseconds(300)).send(HTTPRequest(url: url))
        }
        let elapsed = ContinuousClock.now - started
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < TestTime.bound(.seconds(25)), "took \(elapsed)")
        // The server notices the close on its next write, 50 ms after it once its thread runs (under
        // ThreadSanitizer that took over a minute): the wait only catches a hang.
        try await eventually("the server's next write", seconds: 40) { closed.withLock { $0 } != nil }
        #expect(closed.withLock { $0 } == true, "the server did not see the connection closed")
    }

    @Test("the deadline covers the whole redirect chain")
    func deadlineAcrossRedirects() async throws {
        // A hundred hops of 0.2 s: 20 s without the deadline.
        let server = try LoopbackServer(maxConnections: 100, lifetime: 40) { request, _ in
            Thread.sleep(forTimeInterval: 0.2)
            let number = Int(request.target.dropFirst(3)) ?? 0
            return LoopbackServer.reply(302, "Found", headers: [("Location", "/r/\(number + 1)")])
        }
        let error = await Self.error {
            _ = try await Self.transport(totalTimeout: .milliseconds(500)).send(
                HTTPRequest(url: "http://127.0.0.1:\(server.port)/r/0"))
        }
        guard case .timedOut(_, let seconds)? = error as? HTTPTransportError else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(seconds == 0.5)
        // A deadline per hop would have followed all ten hops (0.2 s each) to tooManyRedirects: the error's kind
        // and the hops asked tell the two apart; the wall clock only tells how loaded the machine was.
        #expect(server.requests.count < 10)
    }

    @Test("cancelling the task stops the transfer promptly with CancellationError", .tags(.realTime))
    func cancellation() async throws {
        let closedAfter = Locked<Double?>(nil)
        let server = try LoopbackServer(maxConnections: 1) { _, _, writer in
            let start = Date()
            if writer.waitForClose(seconds: 20) {
                closedAfter.withLock { $0 = Date().timeIntervalSince(start) }
            }
        }
        let transport = Self.transport()
        let task = Task {
            try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/never"))
        }
        try await eventually("the request reaching the server") { server.requests.count == 1 }
        let cancelled = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let latency = ContinuousClock.now - cancelled
        #expect(throws: CancellationError.self) { try result.get() }
        // The server would hold the request for 20 s; generous bounds keep this stable on a loaded machine.
        #expect(latency < TestTime.bound(.seconds(10)), "send returned \(latency) after cancel")
        try await eventually("the server seeing the connection close", seconds: 10) { closedAfter.withLock { $0 } != nil }
        let closed = try #require(closedAfter.withLock { $0 }, "the server never saw the connection close")
        #expect(closed < 5.0)

        let already = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(server.port)/unused"))
        }
        await #expect(throws: CancellationError.self) { try await already.value }
    }

    @Test("libcurl accepts the share of DNS answers and TLS sessions, with its locks")
    func shareHandle() {
        #expect(CurlShare()?.handle != nil)
    }

    @Test("an explicit proxy receives the absolute-form request")
    func explicitProxy() async throws {
        let proxy = try LoopbackServer(maxConnections: 1) { _, _ in ok("from the proxy") }
        let transport = Self.transport(proxy: "http://127.0.0.1:\(proxy.port)")
        let response = try await transport.send(HTTPRequest(url: "http://novel.example/书/1.html?x=1"))
        #expect(response.body == Array("from the proxy".utf8))
        #expect(response.url == "http://novel.example/%E4%B9%A6/1.html?x=1")
        let request = try #require(proxy.requests.first)
        #expect(request.method == "GET")
        #expect(request.target == "http://novel.example/%E4%B9%A6/1.html?x=1")
        #expect(request.headers.value(for: "Host") == "novel.example")
    }

    @Test("NO_PROXY hosts bypass the proxy")
    func noProxy() async throws {
        let proxy = try LoopbackServer(maxConnections: 1, lifetime: 3) { _, _ in ok("from the proxy") }
        let origin = try LoopbackServer(maxConnections: 1) { _, _ in ok("direct") }
        let transport = Self.transport(proxy: "http://127.0.0.1:\(proxy.port)", noProxy: "localhost,127.0.0.1")
        let response = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(origin.port)/page"))
        #expect(response.body == Array("direct".utf8))
        #expect(origin.requests.map(\.target) == ["/page"])
        #expect(proxy.requests.isEmpty)
    }

    @Test("proxy settings come from the configuration, else the environment in either case")
    func proxyEnvironment() {
        func settings(_ scheme: String, _ configuration: CurlTransport.Configuration, _ environment: [String: String])
            -> [String] {
            let result = CurlTransport.proxySettings(scheme: scheme, configuration: configuration, environment: environment)
            return [result.proxy, result.noProxy]
        }
        let fromEnvironment = CurlTransport.Configuration()
        let upper = ["HTTP_PROXY": "http://up:1", "HTTPS_PROXY": "http://ups:2", "NO_PROXY": "a.example"]
        #expect(settings("http", fromEnvironment, upper) == ["http://up:1", "a.example"])
        #expect(settings("https", fromEnvironment, upper) == ["http://ups:2", "a.example"])
        let both = ["http_proxy": "http://low:1", "HTTP_PROXY": "http://up:1", "no_proxy": "b", "NO_PROXY": "a"]
        #expect(settings("http", fromEnvironment, both) == ["http://low:1", "b"])
        #expect(settings("https", fromEnvironment, ["ALL_PROXY": "socks5h://all:3", "http_proxy": "http://x:1"])
            == ["socks5h://all:3", ""])
        #expect(settings("http", fromEnvironment, ["http_proxy": "  "]) == ["", ""])
        let off = CurlTransport.Configuration(useEnvironmentProxy: false)
        #expect(settings("http", off, upper) == ["", ""])
        let explicit = CurlTransport.Configuration(proxy: "http://mine:8", noProxy: "c")
        #expect(settings("http", explicit, upper) == ["http://mine:8", "c"])
        #expect(settings("http", CurlTransport.Configuration(proxy: ""), upper) == ["", "a.example"])
    }

    @Test("an unreachable proxy is proxyFailed, with the password masked")
    func proxyFailure() async throws {
        let closed = try LoopbackServer(maxConnections: 0) { _, _ in [] }
        let port = closed.port
        let transport = Self.transport(proxy: "http://user:secret@127.0.0.1:\(port)")
        let error = await Self.error { _ = try await transport.send(HTTPRequest(url: "http://novel.example/")) }
        guard case .proxyFailed(let url, let proxy, let message)? = error as? HTTPTransportError else {
            Issue.record("expected proxyFailed, got \(String(describing: error))")
            return
        }
        #expect(url == "http://novel.example/")
        #expect(proxy == "http://user:***@127.0.0.1:\(port)")
        #expect(!message.isEmpty)
        #expect(!"\(error!)".contains("secret"))
    }

    @Test("a refused connection is couldNotConnect with libcurl's explanation (unreachable); a garbled reply is connectionFailed")
    func refused() async throws {
        let closed = try LoopbackServer(maxConnections: 0) { _, _ in [] }
        let port = closed.port
        let error = await Self.error { _ = try await Self.transport().send(HTTPRequest(url: "http://127.0.0.1:\(port)/")) }
        guard case .couldNotConnect(let url, let message)? = error as? HTTPTransportError else {
            Issue.record("expected couldNotConnect, got \(String(describing: error))")
            return
        }
        #expect(error.map { RetryPolicy.isUnreachable($0) } == true)
        #expect(error.map { RetryPolicy.isConnectionError($0) } == true)
        #expect(url == "http://127.0.0.1:\(port)/")
        #expect(message.contains("127.0.0.1"), "message: \(message)")

        let garbage = try LoopbackServer(maxConnections: 1) { _, _ in Array("garbage\r\n\r\n".utf8) }
        let garbled = await Self.error {
            _ = try await Self.transport().send(HTTPRequest(url: "http://127.0.0.1:\(garbage.port)/"))
        }
        guard case .connectionFailed(_, let reason)? = garbled as? HTTPTransportError else {
            Issue.record("expected connectionFailed for a non-HTTP reply, got \(String(describing: garbled))")
            return
        }
        #expect(!reason.isEmpty)
        // The server was reached: not a dead host.
        #expect(garbled.map { RetryPolicy.isUnreachable($0) } == false)
    }

    @Test("gzip is undone; Accept-Encoding can be switched off or set by the request")
    func acceptEncoding() async throws {
        let gzipped: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xb3, 0x29, 0xb0, 0xcb, 0x48, 0xcd, 0xc9,
            0xc9, 0x57, 0x48, 0xaf, 0xca, 0x2c, 0xb0, 0xd1, 0x2f, 0xb0, 0x03, 0x00, 0xaf, 0x82, 0xc9, 0xc1, 0x11,
            0x00, 0x00, 0x00,
        ]
        let server = try LoopbackServer(maxConnections: 3) { request, _ in
            if request.target == "/gz" {
                return LoopbackServer.reply(200, "OK", headers: [("Content-Encoding", "gzip")], body: gzipped)
            }
            return ok("plain")
        }
        let base = "http://127.0.0.1:\(server.port)"
        let decoded = try await Self.transport().send(HTTPRequest(url: base + "/gz"))
        #expect(decoded.body == Array("<p>hello gzip</p>".utf8))
        _ = try await Self.transport(acceptEncoding: nil).send(HTTPRequest(url: base + "/none"))
        _ = try await Self.transport().send(HTTPRequest(
            url: base + "/identity", headers: [HTTPHeader("Accept-Encoding", "identity")]))
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[0].headers.value(for: "Accept-Encoding") == "gzip, deflate")
        #expect(requests[1].headers.value(for: "Accept-Encoding") == nil)
        #expect(requests[2].headers.filter { $0.name.lowercased() == "accept-encoding" }.map(\.value) == ["identity"])
    }

    @Test("headers of a 100 Continue are dropped; only the final response's are kept")
    func informationalResponse() async throws {
        let server = try LoopbackServer(maxConnections: 1) { _, _ in
            Array("HTTP/1.1 100 Continue\r\nX-Interim: yes\r\n\r\n".utf8)
                + LoopbackServer.reply(201, "Created", headers: [("X-Final", "yes")], body: Array("made".utf8))
        }
        let response = try await Self.transport().send(HTTPRequest(
            url: "http://127.0.0.1:\(server.port)/make", method: "POST", body: Array("x".utf8)))
        #expect(response.status == 201)
        #expect(response.headers.value(for: "X-Interim") == nil)
        #expect(response.headers.value(for: "X-Final") == "yes")
        #expect(response.body == Array("made".utf8))
    }

    @Test("requests run concurrently without blocking each other", .tags(.realTime))
    func concurrent() async throws {
        // More stalled transfers than the cooperative pool has threads: if a transfer blocked its thread, the
        // fast requests would wait for the stalled ones to time out.
        let stalled = ProcessInfo.processInfo.activeProcessorCount + 2
        let server = try FaultServer(lifetime: 40) { _, _ in .slow(delay: 30, then: .ok("never")) }
        let fast = try LoopbackServer(maxConnections: 8) { request, _ in ok(request.target) }
        let transport = Self.transport(totalTimeout: .seconds(30))
        let started = ContinuousClock.now
        var slow: [Task<Void, Never>] = []
        for index in 0..<stalled {
            slow.append(Task { _ = try? await transport.send(HTTPRequest(url: server.baseURL + "/slow/\(index)")) })
        }
        try await eventually("every stalled request reaching the server") { server.inFlight == stalled }
        try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for index in 0..<8 {
                group.addTask { try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(fast.port)/\(index)")).body }
            }
            var bodies: Set<[UInt8]> = []
            for try await body in group { bodies.insert(body) }
            #expect(bodies.count == 8)
        }
        // Blocked threads would hold the fast requests until the stalled ones time out at 30 s.
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(25)))
        for task in slow { task.cancel() }
        for task in slow { await task.value }
    }

    @Test("the new errors say what to do")
    func errorDescriptions() {
        let large = HTTPTransportError.bodyTooLarge(url: "http://h/x", limit: 1000)
        #expect(large.description.contains("http://h/x") && large.description.contains("1000 bytes"))
        let proxy = HTTPTransportError.proxyFailed(url: "http://h/", proxy: "http://p:1", message: "refused")
        #expect(proxy.description.contains("http://p:1") && proxy.description.contains("refused"))
        #expect(CurlTransport.redactedProxy("socks5h://me:pw@p:1080") == "socks5h://me:***@p:1080")
        #expect(CurlTransport.redactedProxy("http://p:3128") == "http://p:3128")
        #expect(HTTPTransportError.timedOut(url: "http://h/", seconds: 0.3).description.contains("0.3 s"))
    }
}

@Suite("Blocking work threads")
struct BlockingWorkThreadTests {
    @Test("work runs on a thread of its own, started at once")
    func runsWork() async {
        let caller = pthread_self()
        let ranElsewhere = await withCheckedContinuation { (continuation: CheckedContinuation<Bool?, Never>) in
            let started = BlockingWorkThread.start {
                continuation.resume(returning: pthread_equal(pthread_self(), caller) == 0)
            }
            if !started { continuation.resume(returning: nil) }
        }
        #expect(ranElsewhere == true)
    }
}
