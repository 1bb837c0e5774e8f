import BookRuleLocking
import BookRuleBrowser
import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript
import Foundation

/// What a source's scripts reach outside their sandbox, and nothing more: requests through the engine's
/// transport (the polite fetcher live, a recording under `--record`, the HAR under `--replay` and `bookrule
/// test`), the source's cookie jar, its cache, and a place for `java.log`/`toast` messages.
final class EngineScriptHost: ScriptHost {
    let sourceKey: String
    let sourceName: String
    let clock: ScriptClock
    let sourceHeaders: [HTTPHeader]
    private let transport: any HTTPTransport
    private let cookies: CookieStore?
    private let cache: ScriptCache
    private let executor = SerialQueueExecutor.scriptFetch()
    private let messages = Locked<[String]>([])
    /// The source's stored login, when its `SourceTransport` keeps one (see `EngineScriptHost+Login.swift`).
    let login: SourceLoginTransport?
    let loginRules: LoginRules
    private let renderer: (any WebViewRendering)?

    init(source: BookSource, connection: SourceTransport, options: EngineOptions) {
        sourceKey = source.url
        sourceName = source.name
        clock = options.scriptClock
        sourceHeaders = source.headers
        transport = connection.transport
        cookies = connection.cookies?.store
        cache = ScriptCache(directory: options.scriptCacheDirectory, sourceKey: source.url)
        login = connection.login
        loginRules = source.login
        renderer = options.webView
    }

    func fetch(_ request: ScriptRequest) throws -> ScriptResponse {
        let httpRequest: HTTPRequest
        var charsetOption: String?
        switch request {
        case .spec(let spec):
            // The same `url,{options}` reading as every URL of the source (method, body, charset, headers,
            // and `webView`, rendered in the browser).
            let template = try URLTemplate(spec, field: "java.ajax")
            let resolved = try template.resolved(baseURL: sourceKey, sourceHeaders: sourceHeaders)
            if let options = resolved.webView {
                let page = WebViewPage(request: resolved.request, script: options.script, sourceRegex: options.sourceRegex,
                                       overrideURLRegex: options.overrideURLRegex, delaySeconds: options.delaySeconds,
                                       field: "java.ajax")
                let rendered = try render(page)
                return ScriptResponse(url: rendered.url, statusCode: rendered.status, fields: [("Content-Type", "text/html; charset=utf-8")],
                                      body: rendered.content)
            }
            httpRequest = resolved.request
            charsetOption = template.charset
        case .explicit(let url, let method, let headers, let body):
            guard let absolute = URLReference.resolve(url, against: sourceKey), URLReference.isHTTP(absolute) else {
                throw ScriptHostFailure("\"\(url)\" is not an http(s) URL")
            }
            var all = sourceHeaders
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { all.set(name, value) }
            httpRequest = HTTPRequest(url: absolute, method: method.uppercased(), headers: all,
                                      body: body.map { Array($0.utf8) })
        }
        return try send(httpRequest, charset: charsetOption)
    }

    /// Sends `request` through the engine's transport, waiting for the answer, as scripts read it.
    func send(_ request: HTTPRequest, charset: String?) throws -> ScriptResponse {
        let transport = self.transport
        let response = try executor.blockingRun { try await transport.send(request) }
        return Self.scriptResponse(response, charset: charset)
    }

    /// `response` as scripts read it: the body decoded by the page's charset (the `charset` option first).
    static func scriptResponse(_ response: HTTPResponse, charset: String?) -> ScriptResponse {
        let decision = try? CharsetDetector.decide(bytes: response.body, sourceOption: charset, contentType: response.contentType,
                                                   savedCharset: response.savedCharset)
        let body = decision.flatMap { try? TextTranscoder.utf8Bytes(from: response.body, charset: $0.charset) }
            .map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: response.body, as: UTF8.self)
        var answer = ScriptResponse(url: response.url, statusCode: response.status,
                                    fields: response.headers.map { ($0.name, $0.value) }, body: body)
        answer.bodyBytes = response.body
        return answer
    }

    func webView(_ request: ScriptWebView) throws -> String {
        let url = request.url.flatMap { $0.isEmpty ? nil : $0 } ?? sourceKey
        guard let absolute = URLReference.resolve(url, against: sourceKey), URLReference.isHTTP(absolute) else {
            throw ScriptHostFailure("java.webView: \"\(url)\" is not an http(s) URL")
        }
        let page = WebViewPage(request: HTTPRequest(url: absolute, headers: sourceHeaders), script: request.script,
                               sourceRegex: request.sourceRegex, overrideURLRegex: request.overrideURLRegex,
                               field: "java.webView", html: request.html.flatMap { $0.isEmpty ? nil : $0 })
        return try render(page).content
    }

    /// `java.startBrowserAwait` / `java.startBrowser`: the page (the source's URL syntax, `url,{options}`) is
    /// loaded in the headless browser until its challenge passed (`AntiBotPage` no longer finds a challenge or
    /// captcha in it) and its cookies go into the source's jar; the answer is, as Legado's `StrResponse(url,
    /// body)`, code 200 at the URL with the URL fetched again through the source's transport (with those
    /// cookies) when `refetchAfterSuccess`, else the page as the browser shows it.
    func verify(_ verification: ScriptVerification) throws -> ScriptResponse {
        let helper = verification.helper
        let resolved: (request: HTTPRequest, webView: WebViewOptions?)
        let charset: String?
        do {
            let template = try URLTemplate(verification.url, field: helper)
            resolved = try template.resolved(baseURL: sourceKey, sourceHeaders: sourceHeaders)
            charset = template.charset
        } catch {
            throw ScriptHostFailure("\(helper): \(error)")
        }
        guard URLReference.isHTTP(resolved.request.url) else {
            throw ScriptHostFailure("\(helper): \"\(verification.url)\" is not an http(s) URL")
        }
        let check = PageVerification { html, status in AntiBotPage.detect(html: html, status: status)?.description }
        let page = WebViewPage(request: resolved.request, field: helper, verification: check)
        let rendered = try render(page)
        var body = rendered.content
        if verification.refetchAfterSuccess {
            let again = try send(resolved.request, charset: charset)
            body = again.body
        }
        guard !body.trimmingASCIIWhitespace().isEmpty else {
            throw ScriptHostFailure("\(helper): the verification result of \(resolved.request.url) is empty")
        }
        return ScriptResponse(url: resolved.request.url, statusCode: 200, body: body)
    }

    /// Renders `page` through the source's transport (the script waits, off the runtime's turn at the host, as
    /// `fetch` does), keeping the cookies it set in the source's jar.
    private func render(_ page: WebViewPage) throws -> RenderedPage {
        guard let renderer else { throw WebViewFailure(field: page.field, error: NoWebViewRenderer()) }
        var seeded = page
        seeded.cookies = cookies?.cookies(for: page.request.url) ?? []
        let transport = self.transport
        let ready = seeded
        let rendered: RenderedPage
        do {
            rendered = try executor.blockingRun { try await renderer.render(ready, through: transport) }
        } catch {
            throw WebViewFailure(field: page.field, error: error)
        }
        cookies?.keep(rendered.cookies, from: rendered.url)
        return rendered
    }

    func message(_ text: String, kind: ScriptMessageKind) {
        messages.withLock { $0.append(kind == .log ? "java.log: \(text)" : "\(kind.rawValue): \(text)") }
    }

    /// The messages scripts left since the last call, for the step's warnings.
    func drainMessages() -> [String] {
        messages.withLock { messages in
            defer { messages.removeAll() }
            return messages
        }
    }

    func sourceVariable() -> String? { cache.get("sourceVariable") }

    func setSourceVariable(_ value: String?) {
        if let value { cache.put("sourceVariable", value, seconds: nil) } else { cache.remove("sourceVariable") }
    }

    func cookie(for url: String) -> String {
        cookies?.cookies(for: url).joined(separator: "; ") ?? ""
    }

    func setCookie(_ url: String, _ cookie: String) {
        let headers = cookie.split(separator: ";").map { HTTPHeader("Set-Cookie", $0.trimmingASCIIWhitespace() + "; Path=/") }
        cookies?.keep(headers, from: url)
    }

    func removeCookie(_ url: String) {
        guard let cookies else { return }
        let expired = cookies.cookies(for: url).compactMap { pair in
            pair.split(separator: "=", maxSplits: 1).first.map { HTTPHeader("Set-Cookie", "\($0)=; Max-Age=0; Path=/") }
        }
        cookies.keep(expired, from: url)
    }

    func cacheGet(_ key: String) -> String? { cache.get("v_" + key) }
    func cachePut(_ key: String, _ value: String, seconds: Int?) { cache.put("v_" + key, value, seconds: seconds) }
    func cacheRemove(_ key: String) { cache.remove("v_" + key) }
}

/// A request a script made that cannot be sent.
struct ScriptHostFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
