#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import BookRuleHTTPServer

/// The WebSocket thread's deadlines on times the test chooses: `UpgradedConnection` reads no clock, so the
/// ping and the closing handshake's deadline are checked at the instant before and the instant they fall due,
/// with nothing waited for (the loopback server tests in `WebSocketServerTests` cover the thread itself).
@Suite("One WebSocket connection's ping and close deadlines, on a clock the test sets")
struct UpgradedConnectionTests {
    /// A connection over a socket pair: the server's end non-blocking as the thread's are, the client's end read
    /// by the test.
    private final class Pair {
        let connection: UpgradedConnection
        let session: WebSocketSession
        let client: Int32
        private let server: Int32
        private let signal: WakeSignal

        init(limits: WebSocketLimits, at start: ContinuousClock.Instant) throws {
            var ends: [Int32] = [-1, -1]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
            (server, client) = (ends[0], ends[1])
            for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
            signal = try #require(WakeSignal())
            let outbox = WebSocketOutbox(signal: signal, maxQueuedBytes: 1 << 16)
            session = WebSocketSession(request: HTTPServerRequest(method: "GET", path: "/t"), outbox: outbox, unreadMessages: 4)
            // The handle is libmicrohttpd's; the test never calls `finish()`, which alone uses it.
            let handle = UpgradeHandle(pointer: try #require(OpaquePointer(bitPattern: 0x1)))
            let arrival = UpgradedConnection.Arrival(socket: server, handle: handle, extra: [], session: session, task: Task {})
            connection = UpgradedConnection(arrival, limits: limits, now: start)
        }

        deinit {
            close(server)
            close(client)
        }

        /// Every byte the server has written to the client so far.
        func received() -> [UInt8] {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(client, &chunk, chunk.count)
                guard count > 0 else { return bytes }
                bytes += chunk[..<count]
            }
        }

        /// Sends a final, masked client frame.
        func send(opcode: UInt8, _ payload: [UInt8]) {
            let frame = WebSocketFramingTests.masked(0x80 | opcode, payload)
            _ = frame.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        }
    }

    private static let ping: [UInt8] = [0x89, 4] + Array("ping".utf8)
    private let start = ContinuousClock.now
    private let limits = WebSocketLimits(closeSeconds: 5, pingSeconds: 30)

    @Test("a quiet connection is pinged when pingSeconds have passed, not a millisecond before, then again")
    func quietConnectionIsPinged() throws {
        let pair = try Pair(limits: limits, at: start)
        #expect(pair.connection.wakeAt == start + .seconds(30))
        #expect(pair.connection.step(now: start + .milliseconds(29_999)))
        #expect(pair.received().isEmpty)
        #expect(pair.connection.step(now: start + .seconds(30)))
        #expect(pair.received() == Self.ping)
        #expect(pair.connection.wakeAt == start + .seconds(60))
        #expect(pair.connection.step(now: start + .seconds(60)))
        #expect(pair.received() == Self.ping)
    }

    @Test("what the client sends postpones the ping by pingSeconds from when it arrived")
    func trafficPostponesThePing() throws {
        let pair = try Pair(limits: limits, at: start)
        pair.send(opcode: 0xA, Array("pong".utf8))
        pair.connection.handle(Int16(POLLIN), now: start + .seconds(20))
        #expect(pair.connection.step(now: start + .seconds(30)))
        #expect(pair.received().isEmpty)
        #expect(pair.connection.wakeAt == start + .seconds(50))
        #expect(pair.connection.step(now: start + .seconds(50)))
        #expect(pair.received() == Self.ping)
    }

    @Test("a close the client never answers ends the connection closeSeconds after it was sent, not before; no ping meanwhile")
    func closeDeadline() throws {
        let pair = try Pair(limits: limits, at: start)
        pair.session.close(.goingAway, reason: "bye")
        let sent = start + .seconds(29)
        #expect(pair.connection.step(now: sent))
        #expect(pair.received().first == 0x88)
        #expect(pair.connection.wakeAt == sent + .seconds(5))
        #expect(pair.connection.step(now: sent + .milliseconds(4_999)))
        #expect(pair.received().isEmpty)
        #expect(!pair.connection.step(now: sent + .seconds(5)))
    }

    @Test("the client's close answer ends the connection at once, long before the deadline")
    func answeredClose() throws {
        let pair = try Pair(limits: limits, at: start)
        pair.session.close()
        #expect(pair.connection.step(now: start))
        pair.send(opcode: 0x8, [0x03, 0xE8])
        pair.connection.handle(Int16(POLLIN), now: start + .milliseconds(1))
        #expect(!pair.connection.step(now: start + .milliseconds(1)))
    }
}
