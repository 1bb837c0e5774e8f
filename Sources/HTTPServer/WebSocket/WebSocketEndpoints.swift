/// The WebSocket endpoints an `HTTPServer` serves by upgrading requests (RFC 6455): a request whose `Upgrade`
/// header names `websocket`, or any request for one of the routes' paths, is a handshake. It is checked
/// (400 when malformed, 404 for another path, 403 when `admits` refuses it, 503 past `limits.maxSessions`),
/// answered 101 by libmicrohttpd, and its connection handed to the server's WebSocket thread, while the
/// route's handler runs as a task with the open `WebSocketSession`.
package struct WebSocketEndpoints: Sendable {
    /// Serves one open connection; when it returns the connection is closed normally (1000) if still open.
    package typealias Handler = @Sendable (WebSocketSession) async -> Void

    /// The handlers by path (`/searchBook`).
    package var routes: [String: Handler]
    /// Whether a handshake may open (its Host, Origin, token); refused ones are answered 403.
    package var admits: @Sendable (HTTPServerRequest) -> Bool
    /// The bounds on every session.
    package var limits: WebSocketLimits

    /// Endpoints at `routes`, admitting what `admits` admits, within `limits`.
    package init(routes: [String: Handler], limits: WebSocketLimits = WebSocketLimits(),
                 admits: @escaping @Sendable (HTTPServerRequest) -> Bool = { _ in true }) {
        self.routes = routes
        self.limits = limits
        self.admits = admits
    }
}
