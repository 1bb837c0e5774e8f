import BookRuleLocking
import Foundation
import BookRuleDocument

/// The one RFC 6265 cookie store: what a site set, and what goes back to which URL.
///
/// Implements the parts sites rely on: host-only and `Domain` cookies (a domain must be the host or a parent
/// of it, never an IP address's parent, and never a public suffix such as `com` or `co.uk`, checked against
/// libpsl's list), `Path`, `Expires`/`Max-Age` (a past date deletes), `Secure` (https only). Cookies belong to
/// host names, not ports or schemes, as in browsers.
///
/// A `CookieJar` keeps one per source. A request carries it (`HTTPRequest.cookies`) so the transport reads and
/// fills it on every hop of a redirect chain; a transport given none uses a fresh store for the chain.
public final class CookieStore: Sendable, Hashable {
    private let cookies = Locked<[Cookie]>([])
    private let now: @Sendable () -> Date

    /// One stored cookie.
    struct Cookie: Sendable, Equatable {
        var name: String
        var value: String
        var domain: String
        var hostOnly: Bool
        var path: String
        var secure: Bool
        var expires: Date?
    }

    /// An empty store. `now` is injectable for tests of expiry.
    public init(now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
    }

    /// Stores every `Set-Cookie` field of `headers`, as set by the response from `url`. Returns the names of
    /// the cookies stored (a redirect chain lets them replace the request's own cookies of those names).
    @discardableResult
    public func keep(_ headers: [HTTPHeader], from url: String) -> Set<String> {
        guard let target = Target(url) else { return [] }
        var names: Set<String> = []
        for header in headers where header.name.lowercased() == "set-cookie" {
            if let name = store(header.value, from: target) { names.insert(name) }
        }
        return names
    }

    /// The `name=value` pairs that go to `url`, longest path first.
    public func cookies(for url: String) -> [String] {
        pairs(for: url).map { "\($0.name)=\($0.value)" }
    }

    /// The `Cookie` field value to send to `url`: the request's own `own` field (minus the names in
    /// `replaced`, which the site has set since) followed by the stored cookies whose names `own` does not
    /// give; nil when there is nothing to send.
    public func header(for url: String, own: String?, replaced: Set<String> = []) -> String? {
        var pairs: [(name: String, value: String)] = []
        for piece in (own ?? "").split(separator: ";") {
            let text = piece.trimmingASCIIWhitespace()
            guard !text.isEmpty else { continue }
            let name = text.split(separator: "=", maxSplits: 1).first.map { $0.trimmingASCIIWhitespace() } ?? text
            guard !replaced.contains(name) else { continue }
            pairs.append((name, text.count > name.count ? String(text.dropFirst(name.count + 1)) : ""))
        }
        let ownNames = Set(pairs.map(\.name))
        pairs += self.pairs(for: url).filter { !ownNames.contains($0.name) }
        guard !pairs.isEmpty else { return nil }
        return pairs.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    public static func == (left: CookieStore, right: CookieStore) -> Bool { left === right }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    private func pairs(for url: String) -> [(name: String, value: String)] {
        guard let target = Target(url) else { return [] }
        let date = now()
        return cookies.withLock { cookies in
            cookies.removeAll { $0.expires.map { $0 <= date } ?? false }
            return cookies.filter { cookie in
                (cookie.hostOnly ? cookie.domain == target.host : Self.domainMatches(target.host, cookie.domain))
                    && Self.pathMatches(target.path, cookie.path) && (!cookie.secure || target.secure)
            }
            .sorted { $0.path.count > $1.path.count }
            .map { ($0.name, $0.value) }
        }
    }

    /// Stores one `Set-Cookie` value; the cookie's name, or nil when it was refused.
    private func store(_ header: String, from target: Target) -> String? {
        guard let field = SetCookieField(header) else { return nil }
        var cookie = Cookie(name: field.name, value: field.value, domain: target.host, hostOnly: true,
                            path: Self.defaultPath(target.path), secure: false, expires: nil)
        var maxAge: Int?
        for (key, value) in field.attributes {
            switch key {
            case "domain":
                var domain = value.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                // A site may only set cookies for itself or a parent domain, never for a stranger, and never
                // for a public suffix ("supercookies" for every .com site); one that is the host itself stays
                // host-only (RFC 6265 section 5.3 step 5).
                guard Self.domainMatches(target.host, domain) else { return nil }
                if PublicSuffix.shared?.isPublicSuffix(domain) == true {
                    guard domain == target.host else { return nil }
                    continue
                }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path":
                if value.hasPrefix("/") { cookie.path = value }
            case "secure":
                cookie.secure = true
            case "max-age":
                maxAge = Int(value)
            case "expires":
                if let date = DateCodec.httpDate(value) { cookie.expires = date }
            default:
                continue
            }
        }
        if let maxAge { cookie.expires = now().addingTimeInterval(TimeInterval(maxAge)) }
        let date = now()
        cookies.withLock { cookies in
            cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            if cookie.expires.map({ $0 > date }) ?? true { cookies.append(cookie) }
        }
        return cookie.name
    }

    private static func domainMatches(_ host: String, _ domain: String) -> Bool {
        host == domain || (host.hasSuffix("." + domain) && !host.allSatisfy { $0.isNumber || $0 == "." })
    }

    private static func pathMatches(_ path: String, _ cookiePath: String) -> Bool {
        path == cookiePath || (path.hasPrefix(cookiePath) && (cookiePath.hasSuffix("/") || path.dropFirst(cookiePath.count).hasPrefix("/")))
    }

    private static func defaultPath(_ path: String) -> String {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// The parts of a URL cookies are matched against: the origin's host and scheme, and the path.
    private struct Target {
        let host: String
        let path: String
        let secure: Bool

        init?(_ url: String) {
            guard let origin = URLOrigin(url), let parts = URLReference.Parts(url.trimmingASCIIWhitespace())
            else { return nil }
            host = origin.host
            path = parts.path.isEmpty ? "/" : parts.path
            secure = origin.isSecure
        }
    }
}
