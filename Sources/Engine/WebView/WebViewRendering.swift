import BookRuleBrowser
import BookRuleHTTP

/// What the engine calls for a page a source wants rendered in a browser (`{"webView": true}`, `java.webView`):
/// the page is loaded, its scripts run, and every request it makes is answered through `transport`, the
/// source's own (polite fetcher, recording, replay), so a webView source is paced, recorded and replayed like
/// any other. `ChromiumBrowser` is the implementation; tests and apps may give another in `EngineOptions`.
public protocol WebViewRendering: Sendable {
    /// Renders `page`, answering its requests through `transport`.
    func render(_ page: WebViewPage, through transport: any HTTPTransport) async throws -> RenderedPage
}

extension ChromiumBrowser: WebViewRendering {}

/// A webView page that failed, with the field whose URL asked for it.
public struct WebViewFailure: Error, CustomStringConvertible {
    /// The field (`ruleToc.chapterUrl`, `searchUrl`, `java.webView`).
    public let field: String
    /// What went wrong (`BrowserError` from Chromium).
    public let error: any Error

    /// The field, then the error.
    public var description: String { field.isEmpty ? "\(error)" : "\(field): \(error)" }
}

/// No browser was given to the engine (`EngineOptions.webView` is nil).
public struct NoWebViewRenderer: Error, CustomStringConvertible {
    /// Says that none was given and where one goes.
    public var description: String { "this source needs a browser for webView pages, and none was given (EngineOptions.webView)" }
}
