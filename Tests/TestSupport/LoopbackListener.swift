
#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A listening TCP socket on 127.0.0.1 whose port no other test server of this process has had before.
///
/// Tests run in parallel and several of them stop a server on purpose (to see a refused connection). Without
/// the quarantine the kernel may hand the freed port to the next server another test starts, and the first
/// test's "refused" connection then reaches the second test's server: both fail, each for the other's reason
/// (seen in CI: a proxy test got an answer, and a server with a connection budget refused a request).
package enum LoopbackListener {
    /// Every port a test server of this process was given; none is handed out twice.
    private static let usedPorts = Locked<Set<UInt16>>([])

    /// Why a listening socket could not be made.
    package struct SetupError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        package var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// Opens a socket listening on a port that is fresh for this process; the caller owns (and closes) `fd`.
    /// `host` is a loopback address: 127.0.0.1, or another of 127.0.0.0/8 (on Linux every one of them is
    /// the loopback interface without setup), so tests can have several hosts.
    package static func open(backlog: Int32, host: String = "127.0.0.1") throws -> (fd: Int32, port: UInt16) {
        // Sockets given a quarantined port stay open until a fresh one is found, so the kernel cannot give the
        // same port straight back.
        var rejected: [Int32] = []
        defer { rejected.forEach { close($0) } }
        for _ in 0..<200 {
            let (fd, port) = try bindAndListen(backlog: backlog, host: host)
            let fresh = usedPorts.withLock { $0.insert(port).inserted }
            if fresh { return (fd, port) }
            rejected.append(fd)
        }
        throw SetupError(call: "finding an unused loopback port", code: EADDRINUSE)
    }

    /// A port on `host` that refuses connections: bound, noted and closed again (quarantined like every port
    /// handed out here, so no later test server of this process listens on it). A source pointed at it is a
    /// dead source.
    package static func closedPort(host: String = "127.0.0.1") throws -> UInt16 {
        let (fd, port) = try open(backlog: 1, host: host)
        close(fd)
        return port
    }

    private static func bindAndListen(backlog: Int32, host: String) throws -> (Int32, UInt16) {
        #if os(Linux)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw SetupError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr(host)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw SetupError(call: "bind/listen", code: code)
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw SetupError(call: "getsockname", code: code)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
