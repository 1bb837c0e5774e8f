import BookRuleLocking

#if canImport(Glibc)
import Glibc
#endif

/// The checks a server makes before any route, shared by the studio and `bookrule serve` (and its WebSocket
/// server): the `Host` must name the server as it listens (a page on another site that rebinds its name to the
/// server's address sends its own name as Host), an `Origin`, where it is checked, must be the server's own, and
/// the request must carry the token when there is one (as `?token=`, a header, or the cookie the first visit
/// sets).
///
/// The names the server answers to: its listen address (IPv6 in brackets), `localhost` as well when that is a
/// loopback address or every address, any IP literal when it listens on every address (`0.0.0.0`, `::`), and
/// the extra names it is given (a reverse proxy's); each with one of the ports it listens on.
package final class RequestGate: Sendable {
    /// Why a request is refused.
    package enum Refusal: Error, Sendable, Equatable {
        /// Malformed: two `Host` or `Origin` headers, which servers and proxies read differently.
        case badRequest(String)
        /// A foreign Host or Origin, or no valid token.
        case forbidden(String)
    }

    /// The token every request must carry; nil when none is needed (loopback without `--token`).
    package let token: String?
    /// The cookie holding the token after the first visit.
    package let cookieName: String
    /// The header a script may send the token in, if any.
    package let headerName: String?
    /// The listen address, as given.
    package let address: String
    /// Names clients may use besides the address (a reverse proxy's `Host`), lowercased, without port.
    package let extraNames: [String]
    /// What a refused request is told to do to get a token.
    private let tokenHint: String
    /// The ports, known once the servers listen; until then every request is refused.
    private let ports = Locked<[UInt16]>([])

    /// A gate for a server listening on `address`.
    package init(address: String = "127.0.0.1", token: String?, cookieName: String, headerName: String? = nil,
                 extraNames: [String] = [], tokenHint: String) {
        self.address = address
        self.token = token
        self.cookieName = cookieName
        self.headerName = headerName
        self.extraNames = extraNames.map { $0.lowercased() }
        self.tokenHint = tokenHint
    }

    /// Sets the ports the servers this gate guards listen on (HTTP, and WebSocket beside it).
    package func listening(on ports: [UInt16]) {
        self.ports.withLock { $0 = ports }
    }

    /// Whether `address` is a loopback address (127.0.0.0/8 or ::1).
    package static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address == "[::1]"
    }

    /// Whether `text` is an IPv4 or IPv6 address literal (without brackets).
    package static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Whether `address` is every address of the machine.
    package static func isWildcard(_ address: String) -> Bool {
        address == "0.0.0.0" || address == "::" || address == "[::]"
    }

    /// The address as it stands in a URL or a Host header (IPv6 in brackets).
    package static func urlHost(_ address: String) -> String {
        address.contains(":") && !address.hasPrefix("[") ? "[\(address)]" : address
    }

    private var names: [String] {
        var names = [Self.urlHost(address).lowercased()]
        // Every address includes loopback, so `localhost` reaches a wildcard listener too (the token still
        // guards it); a rebinding page sends its own name, never `localhost`.
        if Self.isLoopback(address) || Self.isWildcard(address) { names.append("localhost") }
        return names + extraNames
    }

    /// The origins state-changing requests may come from: `http://NAME:PORT` for every name and port.
    package var origins: [String] {
        let ports = ports.withLock { $0 }
        return names.flatMap { name in ports.map { "http://\(name):\($0)" } }
    }

    /// Whether `host` (a Host header's value) names this server.
    package func allowsHost(_ host: String) -> Bool {
        let ports = ports.withLock { $0 }
        let host = host.lowercased()
        guard let colon = host.lastIndex(of: ":"), let port = UInt16(host[host.index(after: colon)...]),
              ports.contains(port) else { return false }
        let name = String(host[..<colon])
        if names.contains(name) { return true }
        return Self.isWildcard(address) && Self.isIPLiteral(name)
    }

    /// Whether `origin` (an Origin header's value) is this server's own.
    package func allowsOrigin(_ origin: String) -> Bool {
        let origin = origin.lowercased()
        guard origin.hasPrefix("http://") || origin.hasPrefix("https://") else { return false }
        let host = origin.hasPrefix("https://") ? String(origin.dropFirst(8)) : String(origin.dropFirst(7))
        // Behind a TLS proxy the page's origin is https://NAME (port 443): the proxy's name is an extra name.
        if origin.hasPrefix("https://") && !host.contains(":") { return extraNames.contains(host) }
        return allowsHost(host)
    }

    /// Whether `given` is the token (always true when there is none).
    package func allowsToken(_ given: String?) -> Bool {
        guard let token else { return true }
        guard let given else { return false }
        return AccessToken.matches(given, token)
    }

    /// Checks a request's Host, its Origin (when one is sent), where a browser says it comes from, and its token
    /// (from the query, the header or the cookie).
    package func check(_ request: HTTPServerRequest) throws(Refusal) {
        for name in ["Host", "Origin"] where request.headerCount(name) > 1 {
            throw .badRequest("the request has \(request.headerCount(name)) \(name) headers")
        }
        guard let host = request.header("Host"), allowsHost(host) else {
            let expected = origins.first.map { String($0.dropFirst("http://".count)) } ?? Self.urlHost(address)
            throw .forbidden("this server answers only requests for \(expected) (the Host header was \"\(request.header("Host") ?? "")\")")
        }
        if let origin = request.header("Origin"), !allowsOrigin(origin) {
            throw .forbidden("requests from \(origin) are refused")
        }
        // A browser says where a request comes from even when it sends no Origin (an <img>, a link, a form GET):
        // another site's page, or another port of this host, must not drive the server with plain GETs.
        if let site = request.header("Sec-Fetch-Site")?.lowercased(), site != "same-origin", site != "none" {
            throw .forbidden("requests from another site's page (Sec-Fetch-Site: \(site)) are refused")
        }
        let given = request.argument("token") ?? headerName.flatMap(request.header) ?? request.cookie(cookieName)
        guard allowsToken(given) else { throw .forbidden(tokenHint) }
    }

    /// Whether a request with these headers may go on: the WebSocket server's check of its handshake. `cookie`
    /// is the whole `Cookie` header; `origin` is checked when sent (a handshake always changes state).
    package func allows(host: String?, origin: String?, cookie: String?) -> Bool {
        guard let host, allowsHost(host) else { return false }
        if let origin, !allowsOrigin(origin) { return false }
        return allowsToken(cookie.flatMap { Self.cookieValue(cookieName, in: $0) })
    }

    /// Whether a request for `path` (with its query) with these headers may go on (a WebSocket handshake): its
    /// one `Host` names this server, its `Origin`, when sent, is the server's own, and it carries the token as
    /// `?token=` in `path` or in the cookie. Header names are compared without case.
    package func allows(path: String, headers: [(name: String, value: String)]) -> Bool {
        func values(_ name: String) -> [String] { headers.filter { $0.name.lowercased() == name }.map(\.value) }
        let hosts = values("host")
        let origins = values("origin")
        guard hosts.count == 1, origins.count <= 1, allowsHost(hosts[0]) else { return false }
        if let origin = origins.first, !allowsOrigin(origin) { return false }
        let query = path.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        let given = query.split(separator: "&").first { $0.hasPrefix("token=") }.map { String($0.dropFirst("token=".count)) }
        return allowsToken(given ?? Self.cookieValue(cookieName, in: values("cookie").joined(separator: "; ")))
    }

    /// The value of cookie `name` in a `Cookie` header.
    package static func cookieValue(_ name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: " ") == name {
                return String(parts[1].trimmingCharacters(in: " "))
            }
        }
        return nil
    }

    /// The `Set-Cookie` value that lets later requests carry the token (nil when there is none).
    package var cookie: String? {
        token.map { "\(cookieName)=\($0); Path=/; HttpOnly; SameSite=Strict" }
    }

    private static func isIPLiteral(_ name: String) -> Bool {
        name.hasPrefix("[") && name.hasSuffix("]") ? isIPAddress(String(name.dropFirst().dropLast())) : isIPAddress(name)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text = text.dropFirst() }
        while text.last == set { text = text.dropLast() }
        return text
    }
}
