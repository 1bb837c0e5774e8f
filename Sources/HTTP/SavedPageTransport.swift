import BookRuleLocking
import BookRuleDocument

/// A transport that answers from saved pages and never fetches anything: each page is the response of the
/// URL it was saved from, so relative links, paging and charset decisions run as they would live.
///
/// A request matches a page with the same method and URL (compared exactly, then with percent-encoding, host
/// case, default port and `#fragment` normalised, as HAR replay does) and, for a page that records a request
/// body, the same body; a page without one answers any body (a saved search result page, whatever key was
/// sent). A page without a URL answers the first request no other page answers (the search a source's template
/// builds) and then that request only. Any other request is `SavedPageError.notSaved`, naming it, unless a
/// `fallback` transport (a HAR replay) is given to answer the rest.
public struct SavedPageTransport: HTTPTransport {
    /// The pages, in the order given.
    public let pages: [SavedPage]
    /// What answers requests no page answers; nil fails them.
    public let fallback: (any HTTPTransport)?
    private let unbound: Unbound?
    private let observe: (@Sendable (ObservingTransport.Exchange) -> Void)?

    /// Answers from `pages`; a page whose `url` is nil answers the first request nothing else answers.
    /// `observe` hears of every request the pages answer or refuse (not those the fallback answers, which can
    /// be observed on their own), for `--verbose`.
    public init(pages: [SavedPage], fallback: (any HTTPTransport)? = nil,
                observe: (@Sendable (ObservingTransport.Exchange) -> Void)? = nil) {
        self.pages = pages.filter { $0.url != nil }
        self.fallback = fallback
        self.observe = observe
        unbound = pages.first { $0.url == nil }.map(Unbound.init)
    }

    /// Answers `request` from the saved pages (or the fallback); throws `SavedPageError.notSaved` otherwise.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if let page = page(for: request) ?? unbound?.claim(request) {
            var headers: [HTTPHeader] = []
            if let contentType = page.contentType { headers.append(HTTPHeader("Content-Type", contentType)) }
            observe?(ObservingTransport.Exchange(origin: "saved", method: request.method, url: request.url,
                                                 status: page.status, bytes: page.body.count, error: nil))
            return HTTPResponse(url: request.url, status: page.status, headers: headers, body: page.body,
                                savedCharset: page.contentType.flatMap(CharsetDetector.charsetParameter(inContentType:)))
        }
        if let fallback { return try await fallback.send(request) }
        let error = SavedPageError.notSaved(method: request.method, url: request.url, body: request.body,
                                            saved: pages.compactMap(\.url))
        observe?(ObservingTransport.Exchange(origin: "saved", method: request.method, url: request.url, status: nil,
                                             bytes: 0, error: "not saved"))
        throw error
    }

    private func page(for request: HTTPRequest) -> SavedPage? {
        let method = request.method.uppercased()
        let candidates = pages.filter { page in
            page.method == method && (page.requestBody == nil || page.requestBody == (request.body ?? []))
        }
        if let exact = candidates.first(where: { $0.url == request.url }) { return exact }
        let normalized = URLEncoding.normalizedForComparison(request.url)
        return candidates.first { $0.url.map(URLEncoding.normalizedForComparison) == normalized }
    }

    /// The page without a URL: given to the first request that asks, then kept for that request.
    private final class Unbound: Sendable {
        private let page: SavedPage
        private let claimedBy = Locked<HTTPRequest?>(nil)

        init(_ page: SavedPage) {
            self.page = page
        }

        func claim(_ request: HTTPRequest) -> SavedPage? {
            claimedBy.withLock { claimed in
                if claimed == nil { claimed = HTTPRequest(url: request.url, method: request.method, body: request.body) }
                guard let claimed, claimed.method == request.method, claimed.body == request.body,
                      URLEncoding.normalizedForComparison(claimed.url) == URLEncoding.normalizedForComparison(request.url)
                else { return nil }
                return page
            }
        }
    }
}
