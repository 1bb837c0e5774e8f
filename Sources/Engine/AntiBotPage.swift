import BookRuleDocument

/// A page a site sends instead of the one asked for, to keep robots out: a Cloudflare challenge or block, a
/// stub whose only content is a script that moves the browser elsewhere, or a captcha.
///
/// Rules run on such a page find nothing, which would read as "the TOC rules found no chapters"; naming the
/// page instead tells an author that the source is fine and the site refused the fetch. Detection looks for the
/// markers these pages carry and, for the generic kinds (script redirects, captchas), also asks that the page
/// have little text, so a real chapter that mentions a captcha or sets `window.location` in a footer is not
/// taken for one.
public struct AntiBotPage: Sendable, Equatable, CustomStringConvertible {
    /// Which kind of refusal the page is.
    public enum Kind: String, Sendable, Equatable, Codable {
        /// Cloudflare's "Just a moment..." / "Checking your browser" interstitial, which needs JavaScript.
        case challenge
        /// An outright block: Cloudflare's "Attention Required!" or "Access denied" (error 1020 and friends).
        case accessDenied = "access denied"
        /// A near-empty page whose script sets `window.location` (or `location.href`, `location.replace`).
        case scriptRedirect = "script redirect"
        /// A page asking to solve a captcha (reCAPTCHA, hCaptcha, GeeTest, 验证码 forms).
        case captcha
    }

    /// Which kind of page it is.
    public let kind: Kind
    /// The marker that gave it away, quoted from the page (for reports).
    public let evidence: String

    /// Creates a detection.
    public init(kind: Kind, evidence: String) {
        self.kind = kind
        self.evidence = evidence
    }

    /// E.g. `a Cloudflare challenge page ("Just a moment...")`.
    public var description: String {
        switch kind {
        case .challenge: return "an anti-bot challenge page (\"\(evidence)\"): the site wants a browser that runs its JavaScript"
        case .accessDenied: return "an anti-bot block page (\"\(evidence)\"): the site refused this client"
        case .scriptRedirect: return "a script-redirect stub (\"\(evidence)\"): the page only sends a browser elsewhere with JavaScript"
        case .captcha: return "a captcha page (\"\(evidence)\"): the site wants a person to solve a puzzle"
        }
    }

    /// Pages longer than this many characters of visible text are real pages, whatever scripts they carry.
    static let stubTextLimit = 400
    /// A script-redirect stub shows at most this many characters (a "loading…" or "redirecting" line).
    static let redirectStubTextLimit = 120

    /// What `html` (a response body decoded to text, with HTTP `status`) is, when it is an anti-bot page.
    public static func detect(html: String, status: Int) -> AntiBotPage? {
        // The markers sit in the head or the first screen; real chapters are long, so look at the start only.
        let head = String(html.prefix(64 * 1024))
        let lower = head.lowercased()
        let title = Self.title(in: lower)

        let textLength = visibleTextLength(lower)
        let isStub = textLength < stubTextLimit
        let challengeTitles = ["just a moment...", "just a moment…", "please wait...", "checking your browser", "ddos-guard"]
        if let match = challengeTitles.first(where: { title.contains($0) }) { return AntiBotPage(kind: .challenge, evidence: match) }
        let challengeMarkers = ["cf-browser-verification", "cf_chl_opt", "cf-challenge", "checking your browser before accessing"]
        if let match = challengeMarkers.first(where: { lower.contains($0) }) { return AntiBotPage(kind: .challenge, evidence: match) }
        // Cloudflare injects its challenge-platform script into ordinary pages too: only a near-empty page is one.
        if isStub, let match = ["/cdn-cgi/challenge-platform/", "enable javascript and cookies to continue"].first(where: { lower.contains($0) }) {
            return AntiBotPage(kind: .challenge, evidence: match)
        }

        if title.contains("attention required") && lower.contains("cloudflare") {
            return AntiBotPage(kind: .accessDenied, evidence: "Attention Required! | Cloudflare")
        }
        let isCloudflareError = lower.contains("cf-error-details") || lower.contains("cloudflare ray id")
            || lower.contains("cf-wrapper")
        if title.contains("access denied") && (isCloudflareError || status == 403 || isStub) {
            return AntiBotPage(kind: .accessDenied, evidence: "Access denied")
        }
        if isCloudflareError, let code = ["error 1020", "error 1010", "error 1015", "error 1012", "error 1006"].first(where: { lower.contains($0) }) {
            return AntiBotPage(kind: .accessDenied, evidence: code)
        }

        let captchaMarkers = ["g-recaptcha", "www.google.com/recaptcha", "h-captcha", "hcaptcha.com", "geetest", "cf-turnstile",
                              "请输入验证码", "人机验证", "安全验证", "滑动验证"]
        if isStub || status == 403 || status == 429 {
            if let match = captchaMarkers.first(where: { lower.contains($0) }) { return AntiBotPage(kind: .captcha, evidence: match) }
            if title.contains("captcha") || title.contains("验证码") { return AntiBotPage(kind: .captcha, evidence: title) }
        }

        // A redirect stub has next to no text and no links of its own: a page with a title, an author and a
        // link or two that opens its TOC by script is a real page.
        let links = lower.components(separatedBy: "<a ").count - 1
        if textLength < Self.redirectStubTextLimit && links < 2 {
            let redirects = ["window.location.href", "window.location.replace", "window.location=", "window.location =",
                             "location.href=", "location.href =", "location.replace(", "document.location"]
            if let match = redirects.first(where: { lower.contains($0) }) { return AntiBotPage(kind: .scriptRedirect, evidence: match) }
        }
        return nil
    }

    /// The text of `<title>`, or "".
    private static func title(in lower: String) -> String {
        guard let open = lower.range(of: "<title"), let close = lower.range(of: ">", range: open.upperBound..<lower.endIndex),
              let end = lower.range(of: "</title>", range: close.upperBound..<lower.endIndex) else { return "" }
        return String(lower[close.upperBound..<end.lowerBound]).trimmingASCIIWhitespace()
    }

    /// How many characters of visible text the page has, roughly: markup, scripts and styles left out.
    static func visibleTextLength(_ lower: String) -> Int {
        var count = 0
        var index = lower.startIndex
        var inTag = false
        while index < lower.endIndex {
            let character = lower[index]
            if inTag {
                if character == ">" { inTag = false }
                index = lower.index(after: index)
                continue
            }
            if character == "<" {
                inTag = true
                // Skip a script or style element whole: its code is not text a reader sees.
                let element = ["script", "style"].first { lower[index...].hasPrefix("<" + $0) }
                if let element, let end = lower.range(of: "</" + element, range: index..<lower.endIndex) {
                    index = end.upperBound
                } else {
                    index = lower.index(after: index)
                }
                continue
            }
            if !character.isWhitespace { count += 1 }
            index = lower.index(after: index)
        }
        return count
    }
}
