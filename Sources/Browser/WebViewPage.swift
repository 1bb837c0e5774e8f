import BookRuleHTTP

/// A page to render in the browser, as Legado's `webView` URL option asks for it.
public struct WebViewPage: Sendable {
    /// The request for the page. GET is loaded as the URL; any other method is fetched first through the
    /// transport and its answer loaded as the page at its URL.
    public var request: HTTPRequest
    /// What to evaluate once the page has settled (`webJs`); nil is the page's `outerHTML`.
    public var script: String?
    /// The first sub-resource whose URL matches this regex (whole) is the result (`sourceRegex`: audio, video).
    public var sourceRegex: String?
    /// The first navigation whose URL matches this regex (whole) is the result (`overrideUrlRegex`).
    public var overrideURLRegex: String?
    /// Extra wait after the page settled, in seconds (`webViewDelayTime`, given in milliseconds).
    public var delaySeconds: Double
    /// Where the page came from, for messages (`ruleToc.chapterUrl`, `java.webView`).
    public var field: String
    /// `name=value` cookies to put in the page's fresh browser context before it loads (the source's jar).
    public var cookies: [String]
    /// Markup to load as the page at the request's URL instead of fetching it (`java.webView(html, url, js)`).
    public var html: String?
    /// Set for a verification page (`java.startBrowserAwait`): the page is waited for until its challenge
    /// passed, and its `outerHTML` is the result (`script` and the regexes are not used).
    public var verification: PageVerification?

    /// A page; see the properties.
    public init(request: HTTPRequest, script: String? = nil, sourceRegex: String? = nil, overrideURLRegex: String? = nil,
                delaySeconds: Double = 0, field: String = "", cookies: [String] = [], html: String? = nil,
                verification: PageVerification? = nil) {
        self.html = html
        self.verification = verification
        self.request = request
        self.script = script
        self.sourceRegex = sourceRegex
        self.overrideURLRegex = overrideURLRegex
        self.delaySeconds = delaySeconds
        self.field = field
        self.cookies = cookies
    }
}

/// How to tell that a verification page (a JavaScript challenge that sets a cookie and reloads, a captcha) has
/// let the browser through: the page is done when `pending` says nothing of it, it has finished loading, and
/// it has neither navigated nor made a request for `quietSeconds`; it is given the page's time limit, after
/// which a page `pending` still names is `BrowserError.needsPerson`.
public struct PageVerification: Sendable {
    /// What the page still shows while it waits (a challenge, a captcha), given its markup and the status its
    /// document was answered with; nil once it is the page asked for.
    public var pending: @Sendable (_ html: String, _ status: Int) -> String?
    /// How long a page that passed must stay put (no navigation, no request) before it is taken.
    public var quietSeconds: Double

    /// A verification; see the properties.
    public init(quietSeconds: Double = 1.5, pending: @escaping @Sendable (_ html: String, _ status: Int) -> String?) {
        self.pending = pending
        self.quietSeconds = quietSeconds
    }
}

/// What a rendered page gave.
public struct RenderedPage: Sendable, Equatable {
    /// The page's URL after its navigations.
    public var url: String
    /// The HTTP status the page's own document was answered with (the engine treats a page answered with 404
    /// as it treats a fetched one).
    public var status: Int
    /// The result: `webJs`'s value (the page's `outerHTML` by default), or the URL `sourceRegex` or
    /// `overrideUrlRegex` matched.
    public var content: String
    /// Cookies the page holds at the end, as `Set-Cookie` header values, for the source's cookie store.
    public var cookies: [HTTPHeader]
    /// Every URL the page requested, in order.
    public var requested: [String]
}
