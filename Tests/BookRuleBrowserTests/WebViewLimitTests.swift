import BookRuleBrowser
import BookRuleEngine
import BookRuleHTTP
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport

@Suite("webView pages: sniffed media URLs and the time limit", .needsChromium)
struct WebViewLimitTests {
    @Test("sourceRegex gives the first media URL the page loads, which is not downloaded")
    func sourceRegexFindsMediaURL() async throws {
        let site = TestSite(html: [
            "http://site.test/play/1.html": """
            <html><body><img src="/cover.jpg"><script>
            setTimeout(() => { const audio = document.createElement('audio'); audio.preload = 'auto';
                               audio.src = '/media/' + (40 + 2) + '.mp3?sig=' + (7 * 6); document.body.appendChild(audio); }, 50);
            </script></body></html>
            """,
        ])
        let page = WebViewPage(request: HTTPRequest(url: "http://site.test/play/1.html"), sourceRegex: ".*\\.mp3.*")
        let result = try await Browsers.short.render(page, through: site)
        #expect(result.content == "http://site.test/media/42.mp3?sig=42")
        #expect(site.requests.map(\.url).contains("http://site.test/cover.jpg"))
        #expect(!site.requests.map(\.url).contains { $0.contains(".mp3") })
    }

    @Test("a page whose script never ends is stopped within its limit, reported with the field, and the browser goes on")
    func endlessPageScriptStopped() async throws {
        let site = TestSite(html: [
            "http://site.test/book/1/": "<html><body><h1>书</h1><a id=\"toc\" href=\"toc.html\">目录</a></body></html>",
            "http://site.test/book/1/toc.html": "<html><body><ul id=\"list\"></ul><script>while (true) {}</script></body></html>",
            "http://site.test/fine.html": "<html><body><p id=\"x\"></p><script>document.getElementById('x').textContent = 'ok'</script></body></html>",
        ])
        let source = try loadSource("""
        {"bookSourceName": "loops", "bookSourceUrl": "http://site.test", "bookSourceType": 0,
         "ruleBookInfo": {"name": "//h1/text()", "tocUrl": "//a[@id='toc']/@href@js:result + ',{\\"webView\\": true}'"},
         "ruleToc": {"chapterList": "//li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"}}
        """)
        let engine = SourceEngine(source: source, transport: site, options: EngineOptions(webView: Browsers.short))
        let info = try await engine.bookInfo(url: "http://site.test/book/1/")
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: EngineError.self) { try await engine.toc(of: info) }
        #expect(clock.now - start < .seconds(TestTime.seconds(3) + 10))
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("ruleBookInfo.tocUrl"), "\(message)")
        #expect(message.contains("was stopped after"), "\(message)")
        // The runaway renderer was ended with its context: the next page renders.
        let next = try await Browsers.short.render(WebViewPage(request: HTTPRequest(url: "http://site.test/fine.html"),
                                                             script: "document.getElementById('x').textContent"),
                                                 through: site)
        #expect(next.content == "ok")
    }
}

@Suite("The browser: reaches nothing by itself, and is started again when it dies", .needsChromium)
struct BrowserProcessTests {
    @Test("a WebSocket (which the Fetch domain does not pause), a preconnect and a DNS prefetch reach no server: the refusing proxy (loopback included) and the empty host resolver each stop it")
    func preconnectRefusedByProxy() async throws {
        // A listener nobody accepts on: a connection made to it waits in its backlog, where poll sees it.
        let (listener, port) = try LoopbackListener.open(backlog: 4)
        defer { close(listener) }
        let other = "http://127.0.0.1:\(port)"
        let site = TestSite(html: [
            "http://site.test/p.html": """
            <html><head><link rel="preconnect" href="\(other)"><link rel="dns-prefetch" href="//bystander.test">
            <link rel="prefetch" href="\(other)/next.html"></head><body><p id="x">seen</p>
            <script>try { new WebSocket('ws://127.0.0.1:\(port)/socket') } catch (e) {}</script></body></html>
            """,
        ])
        let page = try await Browsers.short.render(WebViewPage(request: HTTPRequest(url: "http://site.test/p.html"),
                                                             script: "document.getElementById('x').textContent"),
                                                 through: site)
        #expect(page.content == "seen")
        var waiting = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        #expect(poll(&waiting, 1, 0) == 0, "a connection reached the loopback listener around the fetcher")
        // The prefetch, a request, was asked of bookrule like any other.
        #expect(site.requests.map(\.url).contains("\(other)/next.html"))
    }

    @Test("a browser that died is started again at the next page")
    func restartedAfterDeath() async throws {
        let browser = ChromiumBrowser(limits: BrowserLimits(pageSeconds: TestTime.seconds(10)))
        defer { browser.close() }
        let site = TestSite(html: ["http://site.test/a.html": "<html><body><p id=\"x\">a</p></body></html>"])
        let page = WebViewPage(request: HTTPRequest(url: "http://site.test/a.html"), script: "document.getElementById('x').textContent")
        #expect(try await browser.render(page, through: site).content == "a")
        let pid = try #require(browser.processID)
        kill(-pid, SIGKILL)  // the browser's whole process group, as a crash of Chromium ends it
        // The next page finds it dead (its pipe closed, or a command failing on it) and starts another.
        #expect(try await browser.render(page, through: site).content == "a")
        #expect(browser.startCount == 2)
        #expect(browser.processID != pid)
    }
}
