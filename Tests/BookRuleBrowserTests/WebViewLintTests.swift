import BookRuleBrowser
import BookRuleCheck
import BookRuleEngine
import BookRuleHTTP
import Testing
import TestSupport

@Suite("Sources that need a browser: found by lint, counted by the summary, refused clearly without Chromium")
struct WebViewLintTests {
    static let webViewSource = """
    {"bookSourceName": "需要浏览器", "bookSourceUrl": "http://a.test", "bookSourceType": 0,
     "bookSourceComment": "webView: true in a comment is no option",
     "ruleToc": {"chapterList": "//li", "chapterName": "//a/text()", "chapterUrl": "//a/@href@js:result + ',{\\"webView\\": true}'"},
     "ruleContent": {"content": "@js: java.webView(null, baseUrl, null)", "sourceRegex": ".*\\\\.mp3"}}
    """

    @Test("webViewFields names each field asking for a browser (URL option, java.webView, ruleContent.sourceRegex), not comments")
    func webViewFieldsNamed() throws {
        let source = try loadSource(Self.webViewSource)
        #expect(source.webViewFields == ["ruleToc.chapterUrl", "ruleContent.content", "ruleContent.sourceRegex"])
        #expect(source.problems.isEmpty)
        let plain = try loadSource("""
        {"bookSourceName": "plain", "bookSourceUrl": "http://b.test", "ruleContent": {"content": "//p", "webJs": ""},
         "searchUrl": "/s?q={{key}},{\\"webView\\": false}"}
        """)
        #expect(plain.webViewFields == [])
    }

    @Test("java.startBrowser and java.startBrowserAwait ask for the browser: no problem, runnable with Chromium, counted as needing it without")
    func verificationPagesNeedTheBrowser() throws {
        let source = try loadSource("""
        {"bookSourceName": "验证页", "bookSourceUrl": "http://c.test", "bookSourceType": 0,
         "ruleBookInfo": {"init": "@js: java.startBrowser(baseUrl, '验证'); result", "name": "//h1/text()"},
         "ruleToc": {"chapterList": "//li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"},
         "ruleContent": {"content": "@js: java.startBrowserAwait(baseUrl, '验证', false).body()"}}
        """)
        #expect(source.problems.isEmpty, "\(source.problems)")
        #expect(source.webViewFields == ["ruleBookInfo.init", "ruleContent.content"])
        var present = CompatibilitySummary(browserInstalled: true)
        present.add(source)
        #expect(present.tocAndContentRunnable == 1 && present.fullyRunnable == 1)
        var absent = CompatibilitySummary(browserInstalled: false)
        absent.add(source)
        #expect(absent.tocAndContentRunnable == 0 && absent.reasons[CompatibilitySummary.browserMissing] == 1)
        // The helpers that show a window to a person stay problems.
        let window = try loadSource(#"{"bookSourceUrl": "http://d.test", "ruleContent": {"content": "@js: java.startBrowserDp(baseUrl, 'x')"}}"#)
        #expect(window.problems.map(\.field) == ["ruleContent.content"] && window.webViewFields.isEmpty)
    }

    @Test("the summary counts webView sources runnable only when Chromium is installed, and names the package when not")
    func summaryCountsWebViewByBrowser() throws {
        let source = try loadSource(Self.webViewSource)
        var present = CompatibilitySummary(browserInstalled: true)
        present.add(source)
        #expect(present.withWebView == 1 && present.webViewTocAndContentRunnable == 1 && present.tocAndContentRunnable == 1)
        var absent = CompatibilitySummary(browserInstalled: false)
        absent.add(source)
        #expect(absent.withWebView == 1 && absent.webViewTocAndContentRunnable == 0 && absent.tocAndContentRunnable == 0)
        #expect(absent.reasons[CompatibilitySummary.browserMissing] == 1)
        #expect(absent.lines().contains { $0.contains("not installed: apt install chromium") })
    }

    @Test("without Chromium a webView page fails naming the package, and the step names the field")
    func missingChromiumNamesPackage() async throws {
        let missing = ChromiumBrowser(executable: "/nonexistent/chromium")
        let site = TestSite(html: ["http://a.test/c/1.html": "<p>x</p>"])
        let source = try loadSource(Self.webViewSource)
        let engine = SourceEngine(source: source, transport: site, options: EngineOptions(webView: missing))
        let chapter = Chapter(index: 0, title: "一", url: "http://a.test/c/1.html,{\"webView\": true}")
        let error = await #expect(throws: EngineError.self) { try await engine.content(of: chapter) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("ruleToc.chapterUrl") && message.contains("apt install chromium"), "\(message)")
        #expect(site.requests.isEmpty)
        #expect(missing.startCount == 0)
        #expect(error.map(FailureCause.init) == .other)  // a check that could not run, not the source's fault
    }
}
