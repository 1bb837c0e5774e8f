import BookRuleDocument

/// One request's way through redirects: the redirect rules `CurlTransport` and HAR replay share, so a
/// recording replays exactly as the live site answered.
///
/// The rules: at most `limit` redirects; only http and https targets; the same hop twice (same method, URL and
/// cookies) is a loop; POST becomes GET on 301/302/303 as browsers do (HEAD stays HEAD), 307/308 keep method
/// and body; `Authorization` survives only while the origin (scheme, host, port) stays the same, and the
/// request's own `Cookie` only while the host does. Cookies go through the one RFC 6265 `CookieStore` (the
/// request's, or one for this chain): every hop's `Set-Cookie` is kept for the URL that set it, and every hop
/// sends what the store holds for its URL, so a cookie a login host sets for the whole domain reaches the next
/// host of the chain. A cookie set during the chain replaces the request's own of the same name.
package struct RedirectChain {
    /// Why a redirect was not followed.
    package enum Refusal: Error, Equatable {
        /// `location` from `url` does not resolve to an absolute URL.
        case unresolvable(location: String, from: String)
        /// The target is not http or https (`file:`, `ftp:`, `data:`…).
        case unsupportedScheme(target: String, location: String, from: String)
        /// More than the limit of redirects.
        case tooMany(limit: Int)
        /// The chain came back to a hop it made: the URLs from that hop on, and the repeat.
        case loop([String])
    }

    /// The most redirects followed for one request (fetching.md rule 10).
    package static let defaultLimit = 10

    /// The most redirects followed.
    package let limit: Int
    /// The request the caller made.
    package let original: HTTPRequest
    /// The store the chain reads and fills.
    package let cookies: CookieStore
    /// The request for the current hop, without the stored cookies (`hop` adds them).
    package private(set) var current: HTTPRequest
    private var visited: [(key: String, url: String)] = []
    private var redirects = 0
    /// Cookie names set during the chain; they replace the request's own of those names.
    private var setDuringChain: Set<String> = []

    /// Starts the chain of `request` (method upper-cased), with its cookie store or a new one.
    package init(_ request: HTTPRequest, limit: Int = RedirectChain.defaultLimit) {
        var first = request
        first.method = request.method.uppercased()
        original = first
        current = first
        cookies = request.cookies ?? CookieStore()
        self.limit = limit
    }

    /// The request to send for the current hop: its headers with one `Cookie` field (where the first one
    /// was) holding the request's own cookies and the store's for the hop's URL. Records the hop for loop
    /// detection.
    package mutating func hop() -> HTTPRequest {
        let request = withCookies(current)
        visited.append((Self.loopKey(request), request.url))
        return request
    }

    /// Takes in the answer to the current hop from `url` (the URL as it went out): keeps its cookies, and
    /// returns whether there is a hop to follow (then `hop()` gives it), or throws the reason it is refused.
    /// `location` is the redirect target as the response gives it, nil or empty for none.
    package mutating func received(
        status: Int, headers: [HTTPHeader], location: String?, from url: String
    ) throws(Refusal) -> Bool {
        setDuringChain.formUnion(cookies.keep(headers, from: url))
        guard Self.isRedirect(status), let location, !location.isEmpty else { return false }
        guard let target = URLReference.resolve(location, against: url) else {
            throw .unresolvable(location: location, from: url)
        }
        guard URLReference.isHTTP(target) else {
            throw .unsupportedScheme(target: target, location: location, from: url)
        }
        redirects += 1
        if redirects > limit { throw .tooMany(limit: limit) }
        var next = current
        let here = URLOrigin(url)
        let there = URLOrigin(target)
        if here != there { next.headers.removeAll { $0.name.lowercased() == "authorization" } }
        if here?.host != there?.host { next.headers.removeAll { $0.name.lowercased() == "cookie" } }
        if status == 303 || ((status == 301 || status == 302) && next.method == "POST") {
            if next.method != "HEAD" { next.method = "GET" }
            next.body = nil
            next.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
        }
        next.url = target
        current = next
        let key = Self.loopKey(withCookies(next))
        if let first = visited.firstIndex(where: { $0.key == key }) {
            throw .loop(visited[first...].map(\.url) + [target])
        }
        return true
    }

    /// Whether `status` is a redirect this chain follows (when it has a `Location`).
    package static func isRedirect(_ status: Int) -> Bool {
        [301, 302, 303, 307, 308].contains(status)
    }

    private func withCookies(_ request: HTTPRequest) -> HTTPRequest {
        // Nothing stored for this URL: the request's own fields go out as they are.
        guard !cookies.cookies(for: request.url).isEmpty else { return request }
        var request = request
        let own = request.headers.filter { $0.name.lowercased() == "cookie" }.map(\.value)
        let field = cookies.header(
            for: request.url, own: own.isEmpty ? nil : own.joined(separator: "; "), replaced: setDuringChain)
        let position = request.headers.firstIndex { $0.name.lowercased() == "cookie" } ?? request.headers.endIndex
        request.headers.removeAll { $0.name.lowercased() == "cookie" }
        if let field { request.headers.insert(HTTPHeader("Cookie", field), at: min(position, request.headers.endIndex)) }
        return request
    }

    /// The same method, URL and cookies twice means no progress.
    private static func loopKey(_ request: HTTPRequest) -> String {
        request.method + " " + URLEncoding.normalizedForComparison(request.url) + " "
            + (request.headers.value(for: "Cookie") ?? "")
    }
}
