import BookRuleBrowser
import BookRuleHTTP
import Testing
import TestSupport

@Suite struct SmokeTests {
    @Test func rendersScriptBuiltList() async throws {
        let site = TestSite(html: [
            "http://site.test/toc.html": """
            <html><body><ul id="list"></ul><script>
            fetch('/toc.json').then(r => r.json()).then(items => {
              for (const item of items) { const li = document.createElement('li'); li.textContent = item; document.getElementById('list').appendChild(li) }
            })
            </script></body></html>
            """,
            "http://site.test/toc.json": "[\"one\", \"two\"]",
        ])
        let browser = ChromiumBrowser()
        defer { browser.close() }
        let page = try await browser.render(WebViewPage(request: HTTPRequest(url: "http://site.test/toc.html")), through: site)
        print(page.content, page.requested)
        #expect(page.content.contains("<li>two</li>"))
    }
}
