/// The bounds an `HTTPServer` puts on its WebSocket sessions. A handshake is an HTTP request, bounded as every
/// request is (the server's `requestSeconds` to arrive whole, its connection limit, libmicrohttpd's memory
/// for the head); these bound what comes after the upgrade.
package struct WebSocketLimits: Sendable {
    /// Sessions open at once (counted from the upgrade's answer until the connection ends); a handshake past
    /// them is answered 503.
    package var maxSessions: Int
    /// Largest message from a client, its fragments joined; a longer one closes the connection with 1009.
    package var maxMessageBytes: Int
    /// Messages received but not yet read by the handler; one more closes the connection with 1008.
    package var maxUnreadMessages: Int
    /// Bytes waiting to be sent to one client; more fails `send` and closes the connection.
    package var maxQueuedBytes: Int
    /// Time the closing handshake may take once started (the client's answer, or what is still queued).
    package var closeSeconds: Double
    /// Quiet time after which the server pings an open connection (as Legado does every 30 s), so proxies
    /// between keep it open while a long search has nothing to send.
    package var pingSeconds: Double

    /// Creates limits: 64 sessions, messages of at most 1 MiB and 32 unread, 16 MiB queued per client, 5 s to
    /// close, a ping after 30 s of quiet.
    package init(maxSessions: Int = 64, maxMessageBytes: Int = 1 << 20, maxUnreadMessages: Int = 32,
                 maxQueuedBytes: Int = 16 << 20, closeSeconds: Double = 5, pingSeconds: Double = 30) {
        self.maxSessions = max(1, maxSessions)
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
