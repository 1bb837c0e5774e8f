import Foundation
import BookRuleDocument

// Building fixtures by hand from saved pages: what `bookrule fixture add` does.
extension HARRecording {
    /// Adds `page` as the recorded answer to `method url` (with the page's request body for POST), replacing
    /// any entries that answer the same request (same method, URL with percent-encoding normalised, and body),
    /// so adding a page again updates it. Returns whether an entry was replaced.
    ///
    /// The entry holds what replay reads and nothing more: the request's method, URL and `postData`, and the
    /// response's status, `Content-Type` header and body (see docs/authoring.md, "A minimal HAR").
    @discardableResult
    public mutating func add(_ page: SavedPage, url: String, at date: Date = Date()) -> Bool {
        let method = page.method.uppercased()
        let normalized = URLEncoding.normalizedForComparison(url)
        let comparesBody = method != "GET" && method != "HEAD"
        let before = entries.count
        entries.removeAll { entry in
            entry.request.method.uppercased() == method
                && URLEncoding.normalizedForComparison(entry.request.url) == normalized
                && (!comparesBody || (entry.request.postData?.body ?? []) == (page.requestBody ?? []))
        }
        var requestHeaders: [HTTPHeader] = []
        if comparesBody { requestHeaders.append(HTTPHeader("Content-Type", "application/x-www-form-urlencoded")) }
        let request = HTTPRequest(url: url, method: method, headers: requestHeaders,
                                  body: comparesBody ? (page.requestBody ?? []) : nil)
        var headers: [HTTPHeader] = []
        if let contentType = page.contentType { headers.append(HTTPHeader("Content-Type", contentType)) }
        let response = HTTPResponse(url: url, status: page.status, headers: headers, body: page.body)
        append(request: request, response: response, startedAt: date, duration: .zero)
        if let last = entries.indices.last { entries[last].comment = "added by bookrule from the saved page \(page.file)" }
        return entries.count <= before
    }
}
