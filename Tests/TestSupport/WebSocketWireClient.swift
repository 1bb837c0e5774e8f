#if canImport(Glibc)
import Glibc
#endif
import BookRuleDocument
import BookRuleLocking
import Foundation

/// A WebSocket client over a plain socket, written from RFC 6455 for tests and benchmarks: it sends exactly
/// the bytes a test means (a bad handshake, an unmasked frame, fragments with a ping between), and reads the
/// server's frames raw. Every blocking call runs on a thread of its own (a server's handlers run on Swift's
/// pool), bounded by a receive timeout.
package final class WebSocketWireClient: Sendable {
    /// One frame from the server.
    package struct Frame: Sendable, Equatable {
        package var fin: Bool
        package var opcode: UInt8
        package var payload: [UInt8]
        package var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's code.
        package var closeCode: UInt16? {
            guard opcode == 0x8, payload.count >= 2 else { return nil }
            return UInt16(payload[0]) << 8 | UInt16(payload[1])
        }
    }

    /// The RFC's example key; its accept value is `s3pPLMBiTxaQ9kYGzzhZRbK+xOo=`.
    package static let exampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

    private let fd: Int32
    private let buffer = Locked<[UInt8]>([])
    /// Whether `readFrame` returns the server's pings; otherwise it answers them and reads on, as a browser does.
    private let seesPings: Bool

    /// Connects to `host` (a numeric IPv4 or IPv6 address) at `port`, with a receive timeout of `timeout`
    /// seconds (stretched by the test scale). A server's ping (it pings a connection quiet for 30 s, which a test
    /// on a slowed machine can be) is answered with a pong and not returned, unless `seesPings`.
    package init(port: UInt16, host: String = "127.0.0.1", timeout: Double = 20, seesPings: Bool = false) throws {
        self.seesPings = seesPings
        let ipv6 = host.contains(":")
        fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        let seconds = TestTime.seconds(timeout)
        var limit = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - seconds.rounded(.down)) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(port.bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(port.bigEndian)
            address.sin_addr.s_addr = inet_addr(host)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        let failure = RawHTTP.connectFailure(fd, returned: connected)
        guard failure == 0 else {
            close(fd)
            throw TestFailure("connect to \(host) port \(port) failed: \(String(cString: strerror(failure)))")
        }
    }

    deinit {
        close(fd)
    }

    /// The handshake request for `path` with the usual headers (`Host: host`), then `extra` ones.
    package static func handshake(_ path: String, key: String = exampleKey, host: String = "127.0.0.1",
                                  extra: [String] = []) -> [UInt8] {
        var lines = ["GET \(path) HTTP/1.1", "Host: \(host)", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Key: \(key)", "Sec-WebSocket-Version: 13"]
        lines += extra
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }

    /// A client frame: masked (unless told not to) with a fixed key.
    package static func frame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((UInt64(payload.count) >> UInt64(shift)) & 0xFF)) }
        }
        guard masked else { return bytes + payload }
        let mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        bytes += mask
        bytes += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        return bytes
    }

    /// A masked text frame.
    package static func text(_ text: String, fin: Bool = true) -> [UInt8] { frame(0x1, Array(text.utf8), fin: fin) }

    /// Writes all of `bytes`.
    package func write(_ bytes: [UInt8]) async throws {
        let ok = await BlockingWorkThread.run { [fd] in
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + sent }, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
        guard ok == true else { throw TestFailure("send failed") }
    }

    /// Reads more bytes into the buffer; false at the end of the stream (or the timeout).
    private func fill() async -> Bool {
        let chunk: [UInt8]? = await BlockingWorkThread.run { [fd] in
            var bytes = [UInt8](repeating: 0, count: 65536)
            var count = recv(fd, &bytes, bytes.count, 0)
            // A signal (another test's child process ending) can interrupt the read before anything arrives.
            while count < 0 && errno == EINTR { count = recv(fd, &bytes, bytes.count, 0) }
            return count > 0 ? Array(bytes[..<count]) : nil
        } ?? nil
        guard let chunk else { return false }
        buffer.withLock { $0 += chunk }
        return true
    }

    /// The response head (status line and headers) of the handshake; the rest stays buffered.
    package func responseHead() async throws -> (status: Int, head: String) {
        while true {
            let found: String? = buffer.withLock { bytes in
                guard bytes.count >= 4,
                      let end = (3..<bytes.count).first(where: { bytes[$0 - 3...$0] == [13, 10, 13, 10] }) else { return nil }
                let head = String(decoding: bytes[...end], as: UTF8.self)
                bytes.removeFirst(end + 1)
                return head
            }
            if let found {
                let parts = found.split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure("bad status line: \(found)") }
                return (status, found)
            }
            guard await fill() else { throw TestFailure("the connection ended before a response head") }
        }
    }

    /// Sends the handshake for `path` and reads the answer's status.
    package func open(_ path: String, host: String = "127.0.0.1", extra: [String] = []) async throws -> Int {
        try await write(Self.handshake(path, host: host, extra: extra))
        return try await responseHead().status
    }

    /// The next frame from the server, or nil when the connection ends first.
    package func readFrame() async throws -> Frame? {
        while true {
            let frame: Frame? = try buffer.withLock { bytes in
                guard bytes.count >= 2 else { return nil }
                guard bytes[1] & 0x80 == 0 else { throw TestFailure("the server masked a frame") }
                var length = Int(bytes[1] & 0x7F)
                var header = 2
                if length == 126 {
                    guard bytes.count >= 4 else { return nil }
                    length = Int(bytes[2]) << 8 | Int(bytes[3])
                    header = 4
                } else if length == 127 {
                    guard bytes.count >= 10 else { return nil }
                    length = (2..<10).reduce(0) { $0 << 8 | Int(bytes[$1]) }
                    header = 10
                }
                guard bytes.count >= header + length else { return nil }
                let frame = Frame(fin: bytes[0] & 0x80 != 0, opcode: bytes[0] & 0x0F, payload: Array(bytes[header..<header + length]))
                bytes.removeFirst(header + length)
                return frame
            }
            if let frame, frame.opcode == 0x9, !seesPings {
                try await write(Self.frame(0xA, frame.payload))
                continue
            }
            if let frame { return frame }
            guard await fill() else { return nil }
        }
    }

    /// Every frame until the connection ends; a close frame is answered with one, as a browser does.
    package func framesUntilEnd() async throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try await readFrame() {
            frames.append(frame)
            if frame.opcode == 0x8 { try? await write(Self.frame(0x8, Array(frame.payload.prefix(2)))) }
        }
        return frames
    }

    /// Whether the server ended the connection (rather than the receive timeout passing): true at the end of
    /// the stream, false on a timeout or when bytes arrive.
    package func endsWithoutData() async -> Bool {
        let result: Int? = await BlockingWorkThread.run { [fd] in
            var byte: UInt8 = 0
            var count = recv(fd, &byte, 1, 0)
            while count < 0 && errno == EINTR { count = recv(fd, &byte, 1, 0) }
            return count < 0 && errno == ECONNRESET ? 0 : count
        }
        return result == 0
    }
}
