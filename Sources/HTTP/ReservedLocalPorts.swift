import BookRuleLocking

/// Ports of this machine that no request through a transport may reach: the process's own servers (`bookrule
/// serve`'s API and WebSocket ports). A source's script can ask for any URL, and on loopback the server takes
/// no token, so without this a source could call the API of the server it runs in (edit sources, delete books).
///
/// Checked once the connection is made, on the address libcurl actually connected to, so no name, redirect or
/// DNS answer gets around it: a connection counts as to this machine when its remote address is a loopback or
/// unspecified one, or the same as its local address (one of this machine's own). Through a proxy the check
/// sees the proxy's address instead.
public final class ReservedLocalPorts: Sendable {
    private let ports = Locked<Set<Int>>([])

    /// No port reserved yet.
    public init() {}

    /// Reserves `ports` too.
    public func reserve(_ ports: some Sequence<Int>) {
        self.ports.withLock { $0.formUnion(ports) }
    }

    /// The ports reserved.
    public var reserved: Set<Int> { ports.withLock { $0 } }

    /// Whether a connection from `localAddress` to `remoteAddress`:`port` reaches a reserved port of this machine.
    public func refuses(remoteAddress: String, localAddress: String, port: Int) -> Bool {
        guard ports.withLock({ $0.contains(port) }) else { return false }
        return Self.isThisMachine(remoteAddress) || remoteAddress == localAddress
    }

    /// Loopback (127.0.0.0/8, ::1, IPv4-mapped loopback) and the unspecified addresses, which reach this machine.
    static func isThisMachine(_ address: String) -> Bool {
        let lowered = address.lowercased()
        return lowered.hasPrefix("127.") || lowered.hasPrefix("::ffff:127.") || lowered == "::1"
            || lowered == "0.0.0.0" || lowered == "::" || lowered == "::ffff:0.0.0.0"
    }
}
