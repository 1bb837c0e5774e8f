#if canImport(Glibc)
import Glibc
#endif
import Foundation
import BookRuleLocking

/// A minimal HTTP/1.1 client over a plain socket, so a test can send exactly the Host, Cookie and method it
/// means (a real client library would fix the Host from the URL). One request per connection, bounded by a
/// 100 s receive timeout (a step may be slow on a loaded machine; the studio's own limit is 60 s).
package struct RawHTTP: Sendable {
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]
        package var text: String { String(decoding: body, as: UTF8.self) }
        package func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    package let port: Int

    /// A client of the server on 127.0.0.1:`port`.
    package init(port: Int) {
        self.port = port
    }

    /// Sends one request from a thread of its own: the studio answers steps from tasks on the cooperative
    /// pool, which a test blocked in `recv` on a pool thread would starve.
    package func send(_ method: String, _ target: String, host: String? = nil, headers: [(String, String)] = [],
              body: String? = nil) async throws -> Response {
        let answer = await BlockingWorkThread.run { [self] in
            Result { try self.sendBlocking(method, target, host: host, headers: headers, body: body) }
        }
        guard let answer else { throw Failure(description: "no thread for the request") }
        return try answer.get()
    }

    private func sendBlocking(_ method: String, _ target: String, host: String?, headers: [(String, String)],
                              body: String?) throws -> Response {
        let fd = try connected()
        defer { close(fd) }
        try Self.sendAll(fd, request(method, target, host: host, headers: headers, body: body))
        return try Self.response(fd)
    }

    /// The bytes of a request as `send` writes it.
    package func request(_ method: String, _ target: String, host: String? = nil, headers: [(String, String)] = [],
                 body: String? = nil) -> [UInt8] {
        let bodyBytes = Array((body ?? "").utf8)
        var request = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? "127.0.0.1:\(port)")\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if body != nil { request += "Content-Type: application/json\r\nContent-Length: \(bodyBytes.count)\r\n" }
        request += "\r\n"
        return Array(request.utf8) + bodyBytes
    }

    /// A socket connected to the server (the caller closes it), with a 100 s receive timeout. A connect a
    /// signal interrupts (a child process of another test ending) goes on in the background: it is waited for,
    /// not reported as a failure. A failure says the system's reason.
    package func connected() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 100, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let failure = Self.connectFailure(fd, returned: connected)
        guard failure == 0 else {
            close(fd)
            throw Failure(description: "connect to 127.0.0.1:\(port) failed: \(String(cString: strerror(failure)))")
        }
        return fd
    }

    /// The error of a blocking `connect` on `fd` that returned `returned` (0: none). One a signal interrupted
    /// goes on in the background, so it is waited for and its own outcome returned instead of `EINTR`.
    package static func connectFailure(_ fd: Int32, returned: Int32) -> Int32 {
        guard returned != 0 else { return 0 }
        let failure = errno
        guard failure == EINTR || failure == EINPROGRESS else { return failure }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while poll(&entry, 1, 100_000) < 0 && errno == EINTR {}
        var outcome: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(fd, SOL_SOCKET, SO_ERROR, &outcome, &length) == 0 ? outcome : errno
    }

    /// Writes all of `bytes` to `fd`.
    package static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + sent }, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "send failed: \(String(cString: strerror(errno)))") }
            sent += count
        }
    }

    /// Every byte `fd` receives until the connection ends (or its receive timeout passes).
    package static func receiveAll(_ fd: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        return received
    }

    /// Reads the response on `fd` to the end of the connection.
    package static func response(_ fd: Int32) throws -> Response {
        let received = receiveAll(fd)
        guard let split = Self.headerEnd(received) else { throw Failure(description: "no response head in \(received.count) bytes") }
        let head = String(decoding: received[..<split], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, statusLine.split(separator: " ").count >= 2,
              let status = Int(statusLine.split(separator: " ")[1]) else { throw Failure(description: "bad status line") }
        let parsed: [(String, String)] = head.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        return Response(status: status, headers: parsed, body: Array(received[(split + 4)...]))
    }

    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }
}
