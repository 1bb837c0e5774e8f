/// Why a server cannot start, in words a user can act on.
public enum HTTPServerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// libmicrohttpd could not listen (the port is taken or not allowed, or the address is not one of this
    /// machine's, or not an IP address at all).
    case cannotListen(address: String, port: Int)
    /// The system's random generator could not give a token.
    case noRandomness(reason: String)
    /// WebSockets were asked for, and this machine's libcrypto refuses SHA-1, which every handshake's
    /// `Sec-WebSocket-Accept` needs.
    case noSHA1
    /// The system gave no thread (or pipe) for the WebSocket sessions.
    case noThread

    public var description: String {
        switch self {
        case .cannotListen(let address, let port):
            return port == 0 ? "cannot listen on \(address) (not an IP address of this machine, or no free port?)"
                : "cannot listen on \(address):\(port): the port is in use or not allowed, or the address is not one of "
                + "this machine's; pick another with --port, or 0 for any"
        case .noRandomness(let reason):
            return "cannot make an access token: /dev/urandom \(reason)"
        case .noSHA1:
            return "cannot answer WebSocket handshakes: this machine's OpenSSL refuses SHA-1 (RFC 6455's "
                + "Sec-WebSocket-Accept needs it; check its configuration, e.g. a FIPS-only provider)"
        case .noThread:
            return "cannot start the WebSocket thread: the system refused a thread or a pipe (too many processes or open files?)"
        }
    }
}
