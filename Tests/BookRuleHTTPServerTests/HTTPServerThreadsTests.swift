#if canImport(Glibc)
import Glibc
#endif
import BookRuleHTTPServer
import BookRuleLocking
import Dispatch
import Testing
import TestSupport

/// The server's threads: quick answers on the polling threads, the rest on a thread each while the connection
/// is suspended, and a stop that waits for those threads.
@Suite("HTTPServer: quick answers beside blocked handlers, suspended connections, stop")
struct HTTPServerThreadsTests {
    /// A handler that blocks every `/slow` request until `release`, answering the rest at once, and counts entries.
    final class Gate: Sendable {
        let entered = Locked(0)
        let open = DispatchSemaphore(value: 0)

        func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
            if request.path == "/slow" {
                entered.withLock { $0 += 1 }
                open.wait()
                return .text(200, "slow \(request.argument("n") ?? "")")
            }
            return .text(200, "handled \(request.path)")
        }

        func release(_ count: Int) {
            for _ in 0..<count { open.signal() }
        }
    }

    static func quick(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        request.path == "/fast" ? .text(200, "quick") : nil
    }

    /// A server answering `/fast` quickly and the rest through `gate`, and a client of it.
    /// A server whose blocked handlers wait for `gate`. Its slow-client deadlines are well beyond a test's waits:
    /// under ThreadSanitizer the twelve blocked requests were cut before the test released them.
    static func serving(_ gate: Gate) throws -> (HTTPServer, RawHTTP) {
        let server = try HTTPServer(port: 0, requestSeconds: TestTime.seconds(60), idleTimeoutSeconds: UInt32(TestTime.seconds(120)),
                                    quick: quick) { gate.handle($0) }
        return (server, RawHTTP(port: Int(server.port)))
    }

    /// Sends a GET from a thread of its own, not from a task: in the full suite Swift's shared pool can be held
    /// by other tests for half a minute, and a request that waits for it never reaches the server in time.
    /// The answer (or nil when there was none) is in the result once `finished` is true.
    static func sendOnThread(_ client: RawHTTP, _ target: String) -> Locked<(finished: Bool, response: RawHTTP.Response?)> {
        let outcome = Locked<(finished: Bool, response: RawHTTP.Response?)>((false, nil))
        let started = BlockingWorkThread.start {
            var response: RawHTTP.Response?
            if let socket = try? client.connected() {
                if (try? RawHTTP.sendAll(socket, client.request("GET", target))) != nil { response = try? RawHTTP.response(socket) }
                close(socket)
            }
            outcome.withLock { $0 = (true, response) }
        }
        if !started { outcome.withLock { $0 = (true, nil) } }
        return outcome
    }

    @Test("Twelve requests blocked in the handler (more than the polling threads) leave quick answers and other handlers free")
    func blockedHandlersStallNothing() async throws {
        let gate = Gate()
        let (server, client) = try Self.serving(gate)
        defer { server.stop() }
        let slow = (0..<12).map { number in Self.sendOnThread(client, "/slow?n=\(number)") }
        try await eventually("twelve handlers blocked") { gate.entered.withLock { $0 } == 12 }
        let fast = try await client.send("GET", "/fast")
        #expect(fast.status == 200 && fast.text == "quick\n")
        let other = try await client.send("GET", "/other")
        #expect(other.status == 200 && other.text == "handled /other\n")
        gate.release(12)
        try await eventually("twelve answers") { slow.allSatisfy { $0.withLock { $0.finished } } }
        #expect(slow.map { $0.withLock { $0.response?.text } } == (0..<12).map { "slow \($0)\n" })
    }

    @Test("A connection suspended for its handler's answer carries the next request after it, in order")
    func suspendedConnectionKeepsItsOrder() async throws {
        let gate = Gate()
        let (server, client) = try Self.serving(gate)
        defer { server.stop() }
        let socket = try client.connected()
        defer { close(socket) }
        let host = "Host: 127.0.0.1:\(server.port)\r\n"
        try RawHTTP.sendAll(socket, Array("GET /slow?n=1 HTTP/1.1\r\n\(host)\r\nGET /fast HTTP/1.1\r\n\(host)Connection: close\r\n\r\n".utf8))
        try await eventually("the first request in its handler") { gate.entered.withLock { $0 } == 1 }
        gate.release(1)
        let received = await BlockingWorkThread.run { String(decoding: RawHTTP.receiveAll(socket), as: UTF8.self) }
        let text = try #require(received)
        #expect(text.components(separatedBy: "HTTP/1.1 200").count == 3, "\(text)")
        let first = try #require(text.range(of: "slow 1"))
        let second = try #require(text.range(of: "quick"))
        #expect(first.lowerBound < second.lowerBound)
    }

    @Test("stop() waits for a handler still answering, which gets its answer out, and then returns")
    func stopWaitsForHandlers() async throws {
        let gate = Gate()
        let (server, client) = try Self.serving(gate)
        let slow = Self.sendOnThread(client, "/slow?n=7")
        try await eventually("the request in its handler") { gate.entered.withLock { $0 } == 1 }
        let stopped = Locked(false)
        let stopping = Task.detached {
            _ = await BlockingWorkThread.run {
                server.stop()
                stopped.withLock { $0 = true }
            }
        }
        // A quick answer still comes while stop waits for the handler.
        let fast = try await client.send("GET", "/fast")
        #expect(fast.text == "quick\n")
        #expect(stopped.withLock { $0 } == false)
        gate.release(1)
        try await eventually("the slow request's answer") { slow.withLock { $0.finished } }
        let answer = try #require(slow.withLock { $0.response })
        #expect(answer.status == 200 && answer.text == "slow 7\n")
        await stopping.value
        #expect(stopped.withLock { $0 })
        await #expect(throws: (any Error).self) { try await client.send("GET", "/fast") }
    }
}
