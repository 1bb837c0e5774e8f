import BookRuleLocking
import Foundation
import Testing
import BookRuleHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request as the loopback server saw it on the wire.
package struct WireRequest: Sendable {
    package var method: String
    package var target: String
    package var headers: [HTTPHeader]
    package var body: [UInt8]
}

#if os(Linux)
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let noSignal: Int32 = 0
#endif

/// The connection a `LoopbackServer` streaming handler answers on.
package struct ReplyWriter: Sendable {
    fileprivate let client: Int32
    fileprivate let counter: @Sendable (Int) -> Void

    /// Sends `bytes`; false once the client has gone (no SIGPIPE: MSG_NOSIGNAL).
    @discardableResult
    package func write(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes {
                send(client, $0.baseAddress.map { $0 + sent }, bytes.count - sent, noSignal)
            }
            if count <= 0 { return false }
            sent += count
            counter(count)
        }
        return true
    }

    /// Waits up to `seconds` for the client to close its end (or reset); true if it did.
    package func waitForClose(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(max(1, remaining * 1000)))
            if ready < 0 { return true }
            if ready == 0 { return false }
            let count = scratch.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count <= 0 { return true }
        }
    }
}

/// A tiny HTTP/1.1 server on 127.0.0.1, for tests only: it serves at most `maxConnections` connections (one
/// request each, answered with `Connection: close`), then stops; it also stops after `lifetime` seconds (times
/// `TestTime.scale`), so a test can never hang on it. The lifetime is a backstop for a test that failed before
/// its requests, not a bound: 60 s by default, since a 10 s one ran out under load before tests had sent them.
package final class LoopbackServer: Sendable {
    package let port: UInt16
    private let listenFD: Int32
    private let received = Locked<[WireRequest]>([])
    private let sentCounts = Locked<[Int]>([])
    private let closedCount = Locked(0)

    /// The requests served so far, in order.
    package var requests: [WireRequest] { received.withLock { $0 } }

    /// Bytes written to each connection served so far, in order.
    package var bytesSent: [Int] { sentCounts.withLock { $0 } }

    /// Connections the server is done with (handler returned, socket closed): their `bytesSent` are final.
    package var closedConnections: Int { closedCount.withLock { $0 } }

    /// A server answering each request with the bytes `handler` returns.
    package convenience init(
        maxConnections: Int, lifetime: Double = 60,
        handler: @escaping @Sendable (WireRequest, UInt16) -> [UInt8]
    ) throws {
        try self.init(maxConnections: maxConnections, lifetime: lifetime) { request, port, writer in
            writer.write(handler(request, port))
        }
    }

    /// A server whose `handler` writes each reply itself, as slowly or as much as it likes (bounded by the
    /// socket's 5 s send timeout once the client stops reading).
    package init(
        maxConnections: Int, lifetime: Double = 60,
        streaming handler: @escaping @Sendable (WireRequest, UInt16, ReplyWriter) -> Void
    ) throws {
        let (fd, port) = try LoopbackListener.open(backlog: 16)
        listenFD = fd
        self.port = port
        // One that serves nothing is closed when it is made, so a connection to its port is refused at once.
        guard maxConnections > 0 else {
            close(fd)
            return
        }
        let thread = Thread { [self] in
            self.serve(maxConnections: maxConnections, lifetime: TestTime.seconds(lifetime), port: port, handler: handler)
        }
        thread.start()
    }

    private func serve(
        maxConnections: Int, lifetime: Double, port: UInt16, handler: @Sendable (WireRequest, UInt16, ReplyWriter) -> Void
    ) {
        defer { close(listenFD) }
        let deadline = Date().addingTimeInterval(lifetime)
        var served = 0
        while served < maxConnections {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return }
            var poller = pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000))
            if ready <= 0 { return }
            let client = accept(listenFD, nil, nil)
            if client < 0 { continue }
            served += 1
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if let request = readRequest(client) {
                received.withLock { $0.append(request) }
                let index = sentCounts.withLock { counts in
                    counts.append(0)
                    return counts.count - 1
                }
                let writer = ReplyWriter(client: client) { [self] count in
                    self.sentCounts.withLock { $0[index] += count }
                }
                handler(request, port, writer)
            }
            close(client)
            closedCount.withLock { $0 += 1 }
        }
    }

    private func readRequest(_ client: Int32) -> WireRequest? {
        WireRequestReader.read {
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            return count > 0 ? Array(chunk[0..<count]) : nil
        }
    }

    /// A complete HTTP/1.1 response with `Content-Length` and `Connection: close`.
    package static func reply(_ status: Int, _ reason: String, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}
