import BookRuleLocking


/// The studio's gate, asked before any route: the Host must be the loopback address and port the server
/// listens on (a page on another site that rebinds its name to 127.0.0.1 sends its own name as Host), the
/// request must carry the token (as `?token=`, the `X-Studio-Token` header or the cookie the first page sets),
/// and a request that sends an `Origin` must come from the studio's own origin.
package final class StudioAccess: Sendable {
    /// The cookie holding the token after the first page.
    package static let cookieName = "bookrule_studio"
    /// The header a script may send the token in.
    package static let headerName = "X-Studio-Token"

    /// The token.
    package let token: String
    /// The port, known once the server listens; until then every request is refused.
    private let port = Locked<UInt16?>(nil)

    /// A gate for `token`.
    package init(token: String) {
        self.token = token
    }

    /// Sets the port the server listens on.
    package func listening(on port: UInt16) {
        self.port.withLock { $0 = port }
    }

    /// The origins requests may come from: `http://127.0.0.1:PORT` and `http://localhost:PORT`.
    package var origins: [String] {
        guard let port = port.withLock({ $0 }) else { return [] }
        return ["http://127.0.0.1:\(port)", "http://localhost:\(port)"]
    }

    /// Whether the request may go on; throws the 403 saying why not (400 for a request with two `Host` or
    /// `Origin` headers, which servers and proxies read differently: refused rather than guessed).
    package func check(_ request: HTTPServerRequest) throws(StudioRefusal) {
        for name in ["Host", "Origin"] where request.headerCount(name) > 1 {
            throw .badRequest("the request has \(request.headerCount(name)) \(name) headers")
        }
        let hosts = origins.map { String($0.dropFirst("http://".count)) }
        guard let host = request.header("Host")?.lowercased(), hosts.contains(host) else {
            throw .forbidden("this server answers only requests for \(hosts.first ?? "127.0.0.1") (the Host header was \"\(request.header("Host") ?? "")\")")
        }
        if let origin = request.header("Origin"), !origins.contains(origin.lowercased()) {
            throw .forbidden("requests from \(origin) are refused")
        }
        let given = request.argument("token") ?? request.header(Self.headerName) ?? request.cookie(Self.cookieName)
        guard let given, StudioToken.matches(given, token) else {
            throw .forbidden("no valid token: open the URL bookrule studio printed (it ends in ?token=…)")
        }
    }

    /// The `Set-Cookie` value that lets the page's later requests (frame, scripts, styles) carry the token.
    package var cookie: String {
        "\(Self.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict"
    }
}
