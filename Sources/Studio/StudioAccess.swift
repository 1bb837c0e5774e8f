import BookRuleHTTPServer

/// The studio's gate, asked before any route: the shared `RequestGate` for 127.0.0.1 with a token that every
/// request must carry (as `?token=`, the `X-Studio-Token` header or the cookie the first page sets), and the
/// Origin checked on every request that sends one.
package final class StudioAccess: Sendable {
    /// The cookie holding the token after the first page.
    package static let cookieName = "bookrule_studio"
    /// The header a script may send the token in.
    package static let headerName = "X-Studio-Token"

    /// The token.
    package let token: String
    private let gate: RequestGate

    /// A gate for `token`.
    package init(token: String) {
        self.token = token
        gate = RequestGate(token: token, cookieName: Self.cookieName, headerName: Self.headerName,
                           tokenHint: "no valid token: open the URL bookrule studio printed (it ends in ?token=…)")
    }

    /// Sets the port the server listens on.
    package func listening(on port: UInt16) {
        gate.listening(on: [port])
    }

    /// The origins requests may come from: `http://127.0.0.1:PORT` and `http://localhost:PORT`.
    package var origins: [String] { gate.origins }

    /// Whether the request may go on; throws the 403 saying why not (400 for a request with two `Host` or
    /// `Origin` headers, which servers and proxies read differently: refused rather than guessed).
    package func check(_ request: HTTPServerRequest) throws(StudioRefusal) {
        do {
            try gate.check(request)
        } catch {
            switch error {
            case .badRequest(let reason): throw .badRequest(reason)
            case .forbidden(let reason): throw .forbidden(reason)
            }
        }
    }

    /// The `Set-Cookie` value that lets the page's later requests (frame, scripts, styles) carry the token.
    package var cookie: String {
        gate.cookie ?? ""
    }
}
