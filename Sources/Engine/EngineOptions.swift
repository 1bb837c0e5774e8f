import BookRuleBrowser
import BookRuleScript

/// Limits for one engine, and what its scripts see.
public struct EngineOptions: Sendable {
    /// At most this many TOC pages, and this many pages for one chapter, are followed (a warning says so).
    public var pageCap: Int
    /// The clock and randomness scripts see: the system's, or fixed so a replay gives the same answer every
    /// time (`bookrule test`).
    public var scriptClock: ScriptClock
    /// Where scripts' `cache` and `source.setVariable` values are kept between runs (one JSON file per
    /// source); nil keeps them in memory for this engine only.
    public var scriptCacheDirectory: String?
    /// Time and memory limits for each evaluation of a script.
    public var scriptLimits: ScriptLimits
    /// What renders `webView` pages: the process's headless Chromium (started at the first such page; a clear
    /// error naming the package when it is not installed), or nil to refuse them.
    public var webView: (any WebViewRendering)?
    /// Whether a TOC field whose rule ends in JavaScript is evaluated for all the chapters of a page in one
    /// call into the engine, where that gives the same values (`FieldReader.evaluatedForEach`); false runs
    /// one evaluation per chapter. On by default; off to compare the two.
    public var batchesListScripts = true
    /// Decodes the web fonts that draw chapter text as other characters (docs/fonts.md): the process's
    /// decoder by default (`WebFontReading.current`), nil to leave the text as the page holds it
    /// (`--no-font-decoding`).
    public var webFonts: WebFontReading? = WebFontReading.current

    /// The defaults: 500 pages, the system clock, an in-memory cache, 2 s and 256 MiB per evaluation, and the
    /// process's Chromium for webView pages (`ChromiumBrowser.shared`, started at the first such page).
    public init(pageCap: Int = 500, scriptClock: ScriptClock = .system, scriptCacheDirectory: String? = nil,
                scriptLimits: ScriptLimits = ScriptLimits(), webView: (any WebViewRendering)? = ChromiumBrowser.shared) {
        self.webView = webView
        self.pageCap = pageCap
        self.scriptClock = scriptClock
        self.scriptCacheDirectory = scriptCacheDirectory
        self.scriptLimits = scriptLimits
    }
}
