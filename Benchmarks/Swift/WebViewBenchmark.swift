import BookRule
import Foundation

/// What a webView page costs (issue #25): the browser's start (the first page, less a warm page), and a warm
/// page whose TOC a script builds from fetched JSON, against `SourceEngine.toc` on the same list served as
/// plain HTML. Every request answered from memory, so only bookrule and Chromium are measured.
enum WebViewBenchmark {
    struct MemorySite: HTTPTransport {
        let pages: [String: String]

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            guard let page = pages[request.url] else { return HTTPResponse(url: request.url, status: 404) }
            let type = request.url.hasSuffix(".json") ? "application/json" : "text/html; charset=utf-8"
            return HTTPResponse(url: request.url, status: 200, headers: [HTTPHeader("Content-Type", type)], body: Array(page.utf8))
        }
    }

    static func source(webView: Bool) -> String {
        let option = webView ? "@js:result + ',{\\\"webView\\\": true}'" : ""
        return """
        {"bookSourceUrl": "http://bench.test", "bookSourceName": "benchmark",
         "ruleToc": {"chapterList": "//ul[@id='list']/li", "chapterName": "//a/text()", "chapterUrl": "//a/@href\(option)"}}
        """
    }

    static func run(chapters: Int, iterations: Int) async throws {
        guard ChromiumBrowser.isInstalled else { fail("webview: Chromium is not installed (apt install chromium)") }
        let items = (1...chapters).map { "{\"title\": \"第\($0)章\", \"url\": \"\($0).html\"}" }
        let plainList = (1...chapters).map { "<li><a href=\"\($0).html\">第\($0)章</a></li>" }.joined()
        let site = MemorySite(pages: [
            "http://bench.test/toc.html": """
            <html><body><ul id="list"></ul><script>
            fetch('toc.json').then(r => r.json()).then(items => {
              const list = document.getElementById('list');
              for (const item of items) { const li = document.createElement('li'); li.innerHTML = '<a href="' + item.url + '">' + item.title + '</a>'; list.appendChild(li); }
            });
            </script></body></html>
            """,
            "http://bench.test/toc.json": "[\(items.joined(separator: ","))]",
            "http://bench.test/plain.html": "<html><body><ul id=\"list\">\(plainList)</ul></body></html>",
        ])
        let browser = ChromiumBrowser()
        defer { browser.close() }
        let clock = ContinuousClock()
        let page = WebViewPage(request: HTTPRequest(url: "http://bench.test/toc.html"))
        var start = clock.now
        _ = try await browser.render(page, through: site)
        let first = ScriptTOCBenchmark.milliseconds(clock.now - start)
        guard let webSource = try BookSource.load(bytes: Array(source(webView: true).utf8), path: "webview.json").first,
              let plainSource = try BookSource.load(bytes: Array(source(webView: false).utf8), path: "plain.json").first else {
            fail("benchmark sources do not load")
        }
        let webEngine = SourceEngine(source: webSource, transport: site, options: EngineOptions(webView: browser))
        let plainEngine = SourceEngine(source: plainSource, transport: site)
        var warm: [Double] = []
        var rendered: [Double] = []
        var plain: [Double] = []
        for _ in 0..<iterations {
            start = clock.now
            _ = try await browser.render(WebViewPage(request: HTTPRequest(url: "http://bench.test/plain.html")), through: site)
            warm.append(ScriptTOCBenchmark.milliseconds(clock.now - start))
            start = clock.now
            let toc = try await webEngine.toc(url: "http://bench.test/toc.html,{\"webView\": true}")
            rendered.append(ScriptTOCBenchmark.milliseconds(clock.now - start))
            guard toc.chapters.count == chapters else { fail("webview: \(toc.chapters.count) chapters, expected \(chapters)") }
            start = clock.now
            let reference = try await plainEngine.toc(url: "http://bench.test/plain.html")
            plain.append(ScriptTOCBenchmark.milliseconds(clock.now - start))
            guard reference.chapters.count == chapters else { fail("webview: plain TOC has \(reference.chapters.count) chapters") }
        }
        let warmPage = ScriptTOCBenchmark.median(warm)
        let webTOC = ScriptTOCBenchmark.median(rendered)
        let plainTOC = ScriptTOCBenchmark.median(plain)
        print("webview start_ms=\(String(format: "%.0f", first - warmPage)) (first page \(String(format: "%.0f", first)) ms less a warm static page \(String(format: "%.0f", warmPage)) ms)")
        print("webview toc median_ms=\(String(format: "%.0f", webTOC)) chapters=\(chapters) (script fetches JSON and builds the list)")
        print("plain toc (reference) median_ms=\(String(format: "%.1f", plainTOC)) chapters=\(chapters)")
        print("ratio webview/plain: \(String(format: "%.0f", webTOC / max(plainTOC, 0.001)))x")
    }
}
