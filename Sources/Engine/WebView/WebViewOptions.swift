import BookRuleJSON

/// How a URL asks to be rendered in a browser: Legado's `webView` URL option and its companions.
///
/// `http://site/toc.html,{"webView": true, "webJs": "…"}`: the page is loaded in headless Chromium, its own
/// scripts run, and what `webJs` gives (the page's `outerHTML` by default) is read as the page.
public struct WebViewOptions: Sendable, Equatable {
    /// `webJs`: what to evaluate once the page has settled; nil is the page's `outerHTML`.
    public var script: String?
    /// `sourceRegex`: the first sub-resource whose URL matches is the result (audio and video links).
    public var sourceRegex: String?
    /// `overrideUrlRegex`: the first navigation whose URL matches is the result.
    public var overrideURLRegex: String?
    /// `webViewDelayTime`, in seconds (written in milliseconds).
    public var delaySeconds: Double

    /// Options; see the properties.
    public init(script: String? = nil, sourceRegex: String? = nil, overrideURLRegex: String? = nil, delaySeconds: Double = 0) {
        self.script = script
        self.sourceRegex = sourceRegex
        self.overrideURLRegex = overrideURLRegex
        self.delaySeconds = delaySeconds
    }

    /// The webView options of a URL's options object, nil when it does not ask for a browser. As Legado reads
    /// it, `webView` asks when it is anything but absent, `false`, `""`, `0` or `null`.
    static func reading(_ options: JSONObject) -> WebViewOptions? {
        guard let flag = options["webView"]?.value else { return nil }
        switch flag {
        case .null: return nil
        case .bool(let on): if !on { return nil }
        case .string(let text): if text.isEmpty || text.lowercased() == "false" || text == "0" { return nil }
        case .number(let text): if Double(text) == 0 { return nil }
        case .array, .object: break
        }
        func text(_ key: String) -> String? {
            guard let value = options[key]?.value else { return nil }
            if case .string(let text) = value { return text.isEmpty ? nil : text }
            return nil
        }
        let delay = options["webViewDelayTime"]?.value
        let milliseconds = delay?.doubleValue ?? delay?.stringValue.flatMap(Double.init) ?? 0
        // A source's number: "inf" or 1e30 would trap Duration; no page waits longer than a minute anyway.
        let wait = milliseconds.isFinite ? min(max(0, milliseconds), 60_000) : 0
        return WebViewOptions(script: text("webJs"), sourceRegex: text("sourceRegex"),
                              overrideURLRegex: text("overrideUrlRegex"), delaySeconds: wait / 1000)
    }

    /// `url` without the options after it that ask for a browser (the fields keep those for the step that
    /// renders the page): the page's address, as a list of chapters without a browser would give it.
    public static func address(of url: String) -> String {
        SourceEngine.splitWebView(url).url
    }

    /// Whether the options text after a URL (`{"webView": true}`) asks for a browser.
    static func asked(in optionsText: String) -> Bool {
        guard optionsText.contains("webView"),
              case .object(let object) = (try? JSONParser.parse(optionsText, lenient: true))?.value else { return false }
        return reading(object) != nil
    }
}
