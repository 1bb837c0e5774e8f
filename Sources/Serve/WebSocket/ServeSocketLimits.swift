/// The bounds a `ServeSocketServer` puts on every client.
public struct ServeSocketLimits: Sendable {
    /// Connections open at once (handshaking or open); one more is answered 503 and closed.
    public var maxConnections: Int
    /// Time from the connection to a whole handshake request; a client that is slower is cut off.
    public var handshakeSeconds: Double
    /// Largest request head of the handshake.
    public var maxHeadBytes: Int
    /// Largest message from a client, its fragments joined; a longer one closes the connection with 1009.
    public var maxMessageBytes: Int
    /// Messages received but not yet read by the handler; one more closes the connection with 1008.
    public var maxUnreadMessages: Int
    /// Bytes waiting to be sent to one client; more fails `send` and closes the connection.
    public var maxQueuedBytes: Int
    /// Time the closing handshake may take once started (the client's answer, or what is still queued).
    public var closeSeconds: Double
    /// Quiet time after which the server pings an open connection (as Legado does every 30 s), so proxies
    /// between keep it open while a long search has nothing to send.
    public var pingSeconds: Double

    /// Creates limits: 64 connections, 10 s handshakes of at most 8 KiB, messages of at most 1 MiB and 32
    /// unread, 16 MiB queued per client, 5 s to close, a ping after 30 s of quiet.
    public init(maxConnections: Int = 64, handshakeSeconds: Double = 10, maxHeadBytes: Int = 8192,
                maxMessageBytes: Int = 1 << 20, maxUnreadMessages: Int = 32, maxQueuedBytes: Int = 16 << 20,
                closeSeconds: Double = 5, pingSeconds: Double = 30) {
        self.maxConnections = max(1, maxConnections)
        self.handshakeSeconds = Self.bounded(handshakeSeconds)
        self.maxHeadBytes = max(256, maxHeadBytes)
        self.maxMessageBytes = max(125, maxMessageBytes)
        self.maxUnreadMessages = max(1, maxUnreadMessages)
        self.maxQueuedBytes = max(1024, maxQueuedBytes)
        self.closeSeconds = Self.bounded(closeSeconds)
        self.pingSeconds = Self.bounded(pingSeconds)
    }

    /// A time limit between 10 ms and a day (so any limit converts to milliseconds without overflow).
    private static func bounded(_ seconds: Double) -> Double {
        seconds.isNaN ? 1 : min(86_400, max(0.01, seconds))
    }
}

/// Why a `ServeSocketServer` could not start.
public enum ServeSocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The listen address is not a numeric IPv4 or IPv6 address.
    case badAddress(String)
    /// A socket call failed (`call` and the system's message).
    case system(call: String, message: String)
    /// `start()` was called twice, or after `stop()`.
    case alreadyStarted
    /// This machine's libcrypto refuses SHA-1, which every handshake's `Sec-WebSocket-Accept` needs.
    case noSHA1

    public var description: String {
        switch self {
        case .badAddress(let address): "\"\(address)\" is not a numeric IPv4 or IPv6 address to listen on"
        case .system(let call, let message): "cannot listen for WebSocket connections: \(call): \(message)"
        case .alreadyStarted: "the WebSocket server was already started, or has been stopped"
        case .noSHA1: "cannot answer WebSocket handshakes: this machine's OpenSSL refuses SHA-1 (RFC 6455's Sec-WebSocket-Accept needs it; check its configuration, e.g. a FIPS-only provider)"
        }
    }
}
