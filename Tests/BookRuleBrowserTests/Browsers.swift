import BookRuleBrowser
import Testing
import TestSupport

/// The browsers the suites share: a browser's start is the costly part of a webView test.
enum Browsers {
    /// Pages get 20 s (times the test time scale).
    static let standard = ChromiumBrowser(limits: BrowserLimits(pageSeconds: TestTime.seconds(20)))
    /// Pages get 3 s, for the page that never finishes (and the pages rendered beside it, once it runs):
    /// only there, since a first page also waits for the browser to start.
    static let short = ChromiumBrowser(limits: BrowserLimits(pageSeconds: TestTime.seconds(3)))
}

extension Trait where Self == ConditionTrait {
    /// Skips a suite, saying why, where Debian's chromium is not installed.
    static var needsChromium: Self {
        .enabled(if: ChromiumBrowser.isInstalled, "chromium is not installed (apt install chromium)")
    }
}
