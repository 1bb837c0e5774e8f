/// A page a script asks to be rendered in a browser (`java.webView`, `java.webViewGetSource`,
/// `java.webViewGetOverrideUrl`), through the host, which gives it the source's transport.
public struct ScriptWebView: Sendable, Equatable {
    /// The markup to load as the page (nil: fetch `url`).
    public var html: String?
    /// The page's URL (nil: the source's).
    public var url: String?
    /// What to evaluate once the page settled (nil: its `outerHTML`).
    public var script: String?
    /// `java.webViewGetSource`: the first sub-resource URL matching this is the result.
    public var sourceRegex: String?
    /// `java.webViewGetOverrideUrl`: the first navigation URL matching this is the result.
    public var overrideURLRegex: String?

    /// A page; see the properties.
    public init(html: String? = nil, url: String? = nil, script: String? = nil, sourceRegex: String? = nil,
                overrideURLRegex: String? = nil) {
        self.html = html
        self.url = url
        self.script = script
        self.sourceRegex = sourceRegex
        self.overrideURLRegex = overrideURLRegex
    }
}
