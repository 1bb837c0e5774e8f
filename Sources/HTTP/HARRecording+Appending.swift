import Foundation
import BookRuleDocument
import BookRuleJSON

// Recording exchanges: what `--record` appends after each request.
extension HARRecording {
    /// Appends one exchange made through a transport, as `--record` does after each request.
    ///
    /// A transport follows redirects and reports only the final response, so when `response.url` differs from
    /// `request.url` (beyond percent-encoding and fragment) a redirect entry is inferred first — `302` for GET,
    /// `303` for other methods, with `Location` set to the final URL — and the response is recorded under the final
    /// URL with GET. Replay then reports the same final URL. The real intermediate hops are not known.
    public mutating func append(request: HTTPRequest, response: HTTPResponse, startedAt: Date, duration: Duration) {
        let started = DateCodec.iso8601(startedAt)
        let components = duration.components
        let milliseconds = max(0, Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15)
        let method = request.method.uppercased()
        var finalRequest = request
        finalRequest.method = method
        if !response.url.isEmpty,
           URLEncoding.normalizedForComparison(response.url) != URLEncoding.normalizedForComparison(request.url)
        {
            let status = method == "GET" || method == "HEAD" ? 302 : 303
            let redirect = Response(
                status: status,
                statusText: HARRecording.reasonPhrase(status),
                headers: [HTTPHeader("Location", response.url)],
                content: Content(size: 0, mimeType: "", body: []),
                redirectURL: response.url,
                bodySize: 0
            )
            entries.append(Entry(
                startedDateTime: started, time: 0, request: Self.requestRecord(request, method: method),
                response: redirect, timings: Timings(send: 0, wait: 0, receive: 0),
                comment: "redirect inferred by bookrule: the transport reported final URL \(response.url)"
            ))
            finalRequest = HTTPRequest(url: response.url, method: method == "HEAD" ? "HEAD" : "GET",
                                       headers: request.headers.filter { !Self.isBodyHeader($0.name) })
        }
        let contentType = response.headers.value(for: "Content-Type") ?? ""
        let recorded = Response(
            status: response.status,
            statusText: HARRecording.reasonPhrase(response.status),
            headers: response.headers,
            content: Content(size: response.body.count, mimeType: contentType, body: response.body),
            redirectURL: response.headers.value(for: "Location") ?? "",
            bodySize: response.body.count
        )
        entries.append(Entry(
            startedDateTime: started, time: milliseconds,
            request: Self.requestRecord(finalRequest, method: finalRequest.method), response: recorded,
            timings: Timings(send: 0, wait: milliseconds, receive: 0)
        ))
    }

    private static func isBodyHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "content-type" || lower == "content-length"
    }

    private static func requestRecord(_ request: HTTPRequest, method: String) -> Request {
        var query: [NameValue] = []
        var url = Substring(request.url)
        if let hash = url.firstIndex(of: "#") { url = url[..<hash] }
        if let question = url.firstIndex(of: "?") {
            for pair in url[url.index(after: question)...].split(separator: "&") {
                if let equals = pair.firstIndex(of: "=") {
                    query.append(NameValue(name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...])))
                } else {
                    query.append(NameValue(name: String(pair), value: ""))
                }
            }
        }
        var postData: PostData?
        if let body = request.body {
            postData = PostData(mimeType: request.headers.value(for: "Content-Type") ?? "", body: body)
        }
        return Request(
            method: method, url: request.url, headers: request.headers, queryString: query,
            bodySize: request.body?.count ?? 0, postData: postData
        )
    }

    /// The standard reason phrase for common statuses (HTTPResponse does not carry one), or "".
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
