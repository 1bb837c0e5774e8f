import BookRuleDocument

/// A site that moved from one host to another (`bookrule sources --move-host OLD NEW`): which URLs are on the
/// old host and what they are on the new one. Each side is a host, `host:port`, or an origin
/// `http(s)://host[:port]`; without a scheme the old side matches http and https alike and the new side keeps
/// the URL's scheme; without a port it is the scheme's default.
public struct HostMove: Sendable, Equatable, CustomStringConvertible {
    /// One side of the move.
    public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
        /// `http`, `https`, or nil for either.
        public var scheme: String?
        /// The host name or address, lower case.
        public var host: String
        /// The port, nil for the scheme's default.
        public var port: Int?

        /// Reads `text` (`host`, `host:port`, `http(s)://host[:port]`); nil when it is not one of those.
        public init?(_ text: String) {
            let trimmed = text.trimmingASCIIWhitespace()
            guard !trimmed.contains("?"), !trimmed.contains("#") else { return nil }
            let hasScheme = trimmed.hasPrefix("http://") || trimmed.hasPrefix("https://")
            var written = hasScheme ? trimmed : "http://" + trimmed
            while written.hasSuffix("/") { written.removeLast() }
            guard let origin = URLOrigin(written), let authority = URLReference.Parts(written)?.authority,
                  URLReference.Parts(written)?.path.isEmpty ?? false, !authority.contains("@") else { return nil }
            scheme = hasScheme ? origin.scheme : nil
            host = origin.host
            port = authority.hasSuffix(":\(origin.port)") ? origin.port : nil
        }

        /// An origin's side, the port left out when it is the scheme's default.
        init(_ origin: URLOrigin) {
            scheme = origin.scheme
            host = origin.host
            port = origin.port == (origin.scheme == "https" ? 443 : 80) ? nil : origin.port
        }

        /// Whether `origin` is this side.
        func matches(_ origin: URLOrigin) -> Bool {
            guard origin.host == host, scheme == nil || scheme == origin.scheme else { return false }
            return origin.port == (port ?? (origin.scheme == "https" ? 443 : 80))
        }

        /// `scheme://host[:port]` for a URL of `scheme`.
        func prefix(scheme urlScheme: String) -> String {
            "\(scheme ?? urlScheme)://\(host)" + (port.map { ":\($0)" } ?? "")
        }

        /// The side as it would be typed: `host`, `host:port` or `scheme://host[:port]`.
        public var description: String {
            (scheme.map { "\($0)://" } ?? "") + host + (port.map { ":\($0)" } ?? "")
        }
    }

    /// Where the site was.
    public let old: Endpoint
    /// Where it is now.
    public let new: Endpoint

    /// A move from `old` to `new`; nil when either is not a host, `host:port` or origin, or both are the same.
    public init?(from old: String, to new: String) {
        guard let from = Endpoint(old), let to = Endpoint(new), from != to else { return nil }
        self.old = from
        self.new = to
    }

    /// A move between two origins.
    init(from old: URLOrigin, to new: URLOrigin) {
        self.old = Endpoint(old)
        self.new = Endpoint(new)
    }

    /// `OLD → NEW`.
    public var description: String { "\(old) → \(new)" }

    /// `url` on the new host (path, query and fragment unchanged), nil when it is not on the old host.
    public func moved(_ url: String) -> String? {
        guard let origin = URLOrigin(url), old.matches(origin), let range = url.range(of: "://") else { return nil }
        let rest = url[range.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return new.prefix(scheme: origin.scheme) + rest[end...]
    }

    /// The scheme and authority (`https://host:port`) of each absolute http(s) URL written in `text`, each with
    /// its range: what a move rewrites, the path left as it is.
    static func urls(in text: String) -> [(url: String, range: Range<String.Index>)] {
        var found: [(url: String, range: Range<String.Index>)] = []
        var from = text.startIndex
        while let start = text.range(of: "http", range: from..<text.endIndex) {
            from = start.upperBound
            let afterScheme = text[start.upperBound...].hasPrefix("s://") ? text.index(start.upperBound, offsetBy: 4)
                : text[start.upperBound...].hasPrefix("://") ? text.index(start.upperBound, offsetBy: 3) : nil
            guard let afterScheme else { continue }
            let end = text[afterScheme...].firstIndex { " \t\r\n\"'<>\\/?#".contains($0) } ?? text.endIndex
            guard end > afterScheme else { continue }
            found.append((String(text[start.lowerBound..<end]), start.lowerBound..<end))
            from = end
        }
        return found
    }

    /// `text` (a source's JSON) with every absolute URL on the old host moved to the new one.
    public func rewritten(_ text: String) -> String {
        var result = ""
        var last = text.startIndex
        for (url, range) in Self.urls(in: text) {
            guard let moved = moved(url) else { continue }
            result += text[last..<range.lowerBound] + moved
            last = range.upperBound
        }
        return result + text[last...]
    }

    /// The origins of the absolute URLs in `text`.
    static func origins(in text: String) -> Set<URLOrigin> {
        Set(urls(in: text).compactMap { URLOrigin($0.url) })
    }
}
