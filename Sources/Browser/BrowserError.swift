/// Why a page could not be rendered in the browser.
public enum BrowserError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No Chromium binary was found where it was looked for.
    case notInstalled(searched: [String])
    /// The browser could not be started (the system call that failed, and why).
    case startFailed(String)
    /// The browser process ended, or its DevTools pipe closed, while a page was being rendered.
    case browserExited
    /// The browser answered a DevTools command with an error.
    case protocolError(method: String, message: String)
    /// The page did not finish within its time limit (a page script that loops forever, a load that never ends).
    case timeLimit(url: String, seconds: Double, stage: String)
    /// The page's own navigation failed (the document's request failed or was refused).
    case navigationFailed(url: String, reason: String)
    /// `webJs` (or the default `outerHTML`) kept giving nothing.
    case emptyResult(url: String, tries: Int)
    /// Only http(s) pages are loaded.
    case notHTTP(String)
    /// A `sourceRegex` or `overrideUrlRegex` that does not compile.
    case badPattern(field: String, pattern: String, reason: String)
    /// The page's `webJs` threw.
    case scriptFailed(url: String, message: String)
    /// A verification page (`java.startBrowserAwait`) still showed a challenge or a captcha at its time limit:
    /// only a person can pass it.
    case needsPerson(url: String, seconds: Double, shows: String)

    /// The error in words, naming the package when Chromium is missing and the stage a page was stopped in.
    public var description: String {
        switch self {
        case .notInstalled(let searched):
            return "webView pages need Chromium, which is not installed (looked for \(searched.joined(separator: ", "))): apt install chromium (or set BOOKRULE_CHROMIUM to its path)"
        case .startFailed(let reason): return "Chromium could not be started: \(reason)"
        case .browserExited: return "Chromium exited while rendering the page"
        case .protocolError(let method, let message): return "Chromium refused \(method): \(message)"
        case .timeLimit(let url, let seconds, let stage):
            return "the webView page \(url) was stopped after \(Self.format(seconds)) s (\(stage)); a page script that never ends, or a load that never finishes"
        case .navigationFailed(let url, let reason): return "the webView page \(url) did not load: \(reason)"
        case .emptyResult(let url, let tries): return "the webView page \(url) gave nothing after \(tries) tries of webJs"
        case .notHTTP(let url): return "\"\(url)\" is not an http(s) URL; a webView loads only those"
        case .badPattern(let field, let pattern, let reason): return "\(field) \"\(pattern)\" is not a valid regex: \(reason)"
        case .scriptFailed(let url, let message): return "webJs on \(url) threw: \(message)"
        case .needsPerson(let url, let seconds, let shows):
            return "the verification page \(url) still shows \(shows) after \(Self.format(seconds)) s in the headless browser: a person is needed to pass it, and bookrule runs unattended"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
