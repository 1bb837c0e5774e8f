import Foundation

/// Keeps the cookies one source's site sets and sends them back, as a browser would (`enabledCookieJar`).
///
/// Wraps the transport the source's engine uses, so each source has its own `CookieStore`. The store rides on
/// each request (`HTTPRequest.cookies`), so a transport that follows redirects (`CurlTransport`, HAR replay)
/// reads and fills it on every hop: a `Domain=example.com` cookie a login host sets on a 302 goes on to
/// `www.example.com` in the same chain and is kept. For a transport that ignores it, the jar adds the cookies
/// for the request's URL itself and keeps what the final response sets. A `Cookie` header the source sets
/// itself (its `header`) wins for the names it gives.
public final class CookieJar: HTTPTransport {
    private let upstream: any HTTPTransport
    /// The cookies kept.
    public let store: CookieStore

    /// A jar in front of `upstream`. `now` is injectable for tests of expiry.
    public init(upstream: any HTTPTransport, now: @escaping @Sendable () -> Date = { Date() }) {
        self.upstream = upstream
        self.store = CookieStore(now: now)
    }

    /// Sends `request` with the jar's matching cookies and stores what the response sets.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await upstream.send(withCookies(request))
        store.keep(response.headers, from: response.url)
        return response
    }

    /// Streams `request` with the jar's matching cookies (through the upstream's own streaming, so a large
    /// file is never held) and stores what the response sets.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        let result = try await upstream.stream(withCookies(request), to: sink)
        store.keep(result.head.headers, from: result.head.url)
        return result
    }

    /// `request` carrying the store, with its cookies for the request's URL added (the request's own
    /// `Cookie` names win).
    private func withCookies(_ request: HTTPRequest) -> HTTPRequest {
        var outgoing = request
        outgoing.cookies = store
        if let field = store.header(for: request.url, own: request.headers.value(for: "Cookie")) {
            outgoing.headers.set("Cookie", field)
        }
        return outgoing
    }

    /// The `name=value` pairs that would be sent to `url`, for tests and debugging.
    public func cookies(for url: String) -> [String] {
        store.cookies(for: url)
    }
}
