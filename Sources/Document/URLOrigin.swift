/// The scheme, host and port of an absolute http(s) URL: the one reading of "which server is this" that the
/// polite fetcher (one queue per origin), the transport's redirect checks (credentials stay with their origin)
/// and the cookie jar (cookies belong to a host name) share.
///
/// The host is lower-cased and keeps an IPv6 literal's brackets; user information (`user:pass@`) is dropped;
/// a missing port is the scheme's default (80, 443). Built from `URLReference.Parts`, so it agrees with link
/// resolution about where the authority ends.
public struct URLOrigin: Sendable, Hashable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or address in lower case, e.g. `www.example.com`, `127.0.0.1`, `[::1]`.
    public let host: String
    /// The port, the scheme's default when the URL gives none.
    public let port: Int

    /// Reads the origin of `url` (surrounding whitespace ignored); nil unless it is an absolute http or https
    /// URL with a host and a valid port (at most 65535).
    public init?(_ url: String) {
        guard let parts = URLReference.Parts(url.trimmingASCIIWhitespace()), let scheme = parts.scheme,
              scheme == "http" || scheme == "https", let written = parts.authority
        else { return nil }
        var authority = Substring(written)
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host = authority
        var port: Substring = ""
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") {
                port = after.dropFirst()
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { return nil }
        if port.isEmpty {
            self.port = scheme == "https" ? 443 : 80
        } else {
            guard port.utf8.count <= 5, port.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(port),
                  value <= 65_535
            else { return nil }
            self.port = value
        }
        self.scheme = scheme
        self.host = host.lowercased()
    }

    /// `host:port`, e.g. `127.0.0.1:8791`: what a person reads as "the server" in a message.
    public var authority: String { "\(host):\(port)" }

    /// `scheme://host:port` with the port always written, e.g. `https://www.example.com:443`: the key of one
    /// server's queue.
    public var description: String { "\(scheme)://\(host):\(port)" }

    /// Whether this is `https`, so cookies marked `Secure` may be sent.
    public var isSecure: Bool { scheme == "https" }
}
