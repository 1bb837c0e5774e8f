import Foundation
import Synchronization
import BookRuleDocument

/// Keeps the cookies one source's site sets and sends them back, as a browser would (`enabledCookieJar`).
///
/// Wraps the transport the source's engine uses, so each source has its own jar. Implements the parts of
/// RFC 6265 sites rely on: host-only and `Domain` cookies, `Path`, `Expires`/`Max-Age` (a past date deletes),
/// `Secure` (https only). A `Cookie` header the source sets itself (its `header`) wins for the names it gives.
public final class CookieJar: HTTPTransport {
    private let upstream: any HTTPTransport
    private let cookies = Mutex<[Cookie]>([])
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

    /// A jar in front of `upstream`. `now` is injectable for tests of expiry.
    public init(upstream: any HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }) {
        self.upstream = upstream
        self.now = now
    }

    /// Sends `request` with the jar's matching cookies and stores what the response sets.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await upstream.send(withCookies(request))
        keepCookies(of: response.url, headers: response.headers)
        return response
    }

    /// Streams `request` with the jar's matching cookies (through the upstream's own streaming, so a large
    /// file is never held) and stores what the response sets.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        let result = try await upstream.stream(withCookies(request), to: sink)
        keepCookies(of: result.head.url, headers: result.head.headers)
        return result
    }

    private func keepCookies(of url: String, headers: [HTTPHeader]) {
        guard let target = Target(url) else { return }
        for header in headers where header.name.lowercased() == "set-cookie" {
            store(header.value, from: target)
        }
    }

    /// `request` with the jar's cookies for its URL added (the request's own `Cookie` names win).
    private func withCookies(_ request: HTTPRequest) -> HTTPRequest {
        var outgoing = request
        if let target = Target(request.url) {
            let stored = matching(target)
            if !stored.isEmpty {
                let own = outgoing.headers.value(for: "Cookie") ?? ""
                let ownNames = Set(own.split(separator: ";").compactMap { $0.split(separator: "=", maxSplits: 1).first }
                    .map { $0.trimmingASCIIWhitespace() })
                let added = stored.filter { !ownNames.contains($0.name) }.map { "\($0.name)=\($0.value)" }
                if !added.isEmpty {
                    outgoing.headers.set("Cookie", ([own].filter { !$0.isEmpty } + added).joined(separator: "; "))
                }
            }
        }
        return outgoing
    }

    /// The `name=value` pairs that would be sent to `url`, for tests and debugging.
    public func cookies(for url: String) -> [String] {
        guard let target = Target(url) else { return [] }
        return matching(target).map { "\($0.name)=\($0.value)" }
    }

    private func matching(_ target: Target) -> [Cookie] {
        let date = now()
        return cookies.withLock { cookies in
            cookies.removeAll { $0.expires.map { $0 <= date } ?? false }
            return cookies.filter { cookie in
                (cookie.hostOnly ? cookie.domain == target.host : Self.domainMatches(target.host, cookie.domain))
                    && Self.pathMatches(target.path, cookie.path) && (!cookie.secure || target.secure)
            }
            .sorted { $0.path.count > $1.path.count }
        }
    }

    private func store(_ header: String, from target: Target) {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return }
        let name = first[..<equals].trimmingASCIIWhitespace()
        guard !name.isEmpty else { return }
        var cookie = Cookie(name: name, value: first[first.index(after: equals)...].trimmingASCIIWhitespace(),
                            domain: target.host, hostOnly: true, path: Self.defaultPath(target.path), secure: false,
                            expires: nil)
        var maxAge: Int?
        for attribute in parts.dropFirst() {
            let pair = attribute.split(separator: "=", maxSplits: 1)
            let key = pair.first.map { $0.trimmingASCIIWhitespace().lowercased() } ?? ""
            let value = pair.count > 1 ? pair[1].trimmingASCIIWhitespace() : ""
            switch key {
            case "domain":
                var domain = value.lowercased()
                if domain.hasPrefix(".") { domain.removeFirst() }
                // A site may only set cookies for itself or a parent domain, never for a stranger.
                guard !domain.isEmpty, Self.domainMatches(target.host, domain) else { return }
                cookie.domain = domain
                cookie.hostOnly = false
            case "path":
                if value.hasPrefix("/") { cookie.path = value }
            case "secure":
                cookie.secure = true
            case "max-age":
                maxAge = Int(value)
            case "expires":
                if let date = RetryAfter.date(value, now: now()) { cookie.expires = date }
            default:
                continue
            }
        }
        if let maxAge { cookie.expires = now().addingTimeInterval(TimeInterval(maxAge)) }
        cookies.withLock { cookies in
            cookies.removeAll { $0.name == cookie.name && $0.domain == cookie.domain && $0.path == cookie.path }
            if cookie.expires.map({ $0 > now() }) ?? true { cookies.append(cookie) }
        }
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

    /// The parts of a request URL cookies are matched against.
    private struct Target {
        let host: String
        let path: String
        let secure: Bool

        init?(_ url: String) {
            guard let parts = URLReference.Parts(url), let scheme = parts.scheme, let authority = parts.authority else { return nil }
            var host = authority.lowercased()
            if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
            if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { host = String(host[..<colon]) }
            self.host = host
            path = parts.path.isEmpty ? "/" : parts.path
            secure = scheme == "https"
        }
    }
}
