import BookRuleBrowser
import BookRuleDocument
import BookRuleHTTP

/// A step's page that may ask for a browser: the URL fields keep `,{"webView": true, …}` after the address
/// (`FieldReader`), and the step renders such a page instead of fetching it.
extension SourceEngine {
    /// `url` without webView options after it, and the options text when there are some.
    static func splitWebView(_ url: String) -> (url: String, options: String?) {
        let split = URLWithOptions(url)
        guard let options = split.options, WebViewOptions.asked(in: options) else { return (url, nil) }
        return (split.address, options)
    }

    /// The request for a step's page and, when its URL asks for it, how to render it.
    func pageRequest(_ url: String, headers: [HTTPHeader], field: String) throws -> (request: HTTPRequest, webView: WebViewOptions?) {
        let (address, options) = Self.splitWebView(url)
        guard options != nil else { return (HTTPRequest(url: address, headers: headers), nil) }
        do {
            return try URLTemplate(url, field: field).resolved(baseURL: source.url, sourceHeaders: headers)
        } catch {
            throw EngineError.unusableRules(step: field, problems: [
                SourceProblem(field: error.field, location: nil, dialect: error.dialect, reason: error.reason),
            ])
        }
    }

    /// Renders `request` in the browser as `options` say, through the engine's transport; the cookies the page
    /// holds at the end go into the source's cookie jar. The result is answered as a page at the rendered URL.
    func rendered(_ request: HTTPRequest, _ options: WebViewOptions, field: String) async throws -> HTTPResponse {
        guard let renderer = self.options.webView else { throw WebViewFailure(field: field, error: NoWebViewRenderer()) }
        // The source's own jar, whatever wraps it (the stored login, a check's watch): a page's cookies are the source's.
        let jar = cookies
        let page = WebViewPage(request: request, script: options.script, sourceRegex: options.sourceRegex,
                               overrideURLRegex: options.overrideURLRegex, delaySeconds: options.delaySeconds,
                               field: field, cookies: jar?.cookies(for: request.url) ?? [])
        let result: RenderedPage
        do {
            result = try await renderer.render(page, through: transport)
        } catch {
            throw WebViewFailure(field: field, error: error)
        }
        jar?.store.keep(result.cookies, from: result.url)
        return HTTPResponse(url: result.url, status: result.status, headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")],
                            body: Array(result.content.utf8))
    }
}
