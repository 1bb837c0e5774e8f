import BookRuleBrowser
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import Foundation
import Testing
import TestSupport

@Suite("webView sources: pages rendered by headless Chromium, every request through the polite fetcher", .needsChromium)
struct WebViewSourceTests {
    @Test("a book whose TOC and text only a browser builds is read exactly, live through the polite fetcher and again from the recording")
    func scriptBuiltBookReadLiveThenReplayed() async throws {
        let site = try ScriptedSite()
        let source = try loadSource(site.sourceJSON())
        let delay = Duration.milliseconds(150)
        let fetcher = PoliteFetcher(transport: CurlTransport(),
                                    policy: PolitenessPolicy(delay: delay, failureDelay: .milliseconds(300), jitter: false))
        let recorder = RecordingTransport(upstream: fetcher)
        let scratch = try ScratchDirectory("webview")
        let options = EngineOptions(webView: Browsers.standard)

        let live = try LibraryStore(path: scratch.path + "/live.sqlite")
        let fetch = BookFetch(source: source, transport: recorder, pacing: fetcher, store: live, options: options)
        let summary = try #require(try await Self.finished(fetch.run(bookURL: site.base + "/book/1/")))
        #expect(summary.failures.map(\.error) == [])
        try Self.expectBook(summary.book, in: live)

        // What the server saw: every request with bookrule's User-Agent (none with the browser's own, so none
        // came from the browser directly), one at a time, at least the delay apart.
        let hits = site.hits
        #expect(hits.count >= 8)
        let agents = Set(hits.map(\.userAgent))
        #expect(agents.count == 1)
        #expect(agents.allSatisfy { UserAgentPool.currentBrowsers.agents.contains($0) && !$0.contains("Headless") })
        for (previous, next) in zip(hits, hits.dropFirst()) {
            #expect(next.start - previous.end >= delay, "\(previous.target) → \(next.target)")
        }
        #expect(hits.filter { $0.target.hasPrefix("/api/text") }.allSatisfy { $0.cookie.contains("reader=yes") })
        // Exactly the requests bookrule sent (and recorded) reached the server: none went around it.
        #expect(recorder.recording.entries.count == hits.count)
        // The cookie the page's script set is in the source's jar afterwards.
        let jar = try #require(fetch.engine.cookies)
        #expect(jar.cookies(for: site.base + "/book/1/").contains("reader=yes"))

        // Offline, from the recording: the same book, and nothing reaches the server.
        let recording = scratch.path + "/site.har"
        try recorder.recording.write(to: recording)
        let served = site.hits.count
        let replayed = try LibraryStore(path: scratch.path + "/replayed.sqlite")
        let offline = BookFetch(source: source, transport: try HARReplayTransport(contentsOf: recording), store: replayed,
                                options: options, keepsScriptCache: false)
        let again = try #require(try await Self.finished(offline.run(bookURL: site.base + "/book/1/")))
        #expect(again.failures.map(\.error) == [])
        try Self.expectBook(again.book, in: replayed)
        #expect(site.hits.count == served)
    }

    @Test("java.webView renders a page (fetched, or markup given with its URL) through the source's transport, from a rule's script")
    func scriptWebViewRendersThroughHost() async throws {
        let site = TestSite(html: [
            "http://site.test/c/1.html": """
            <html><body><p id="t"></p><script>
            fetch('/c/1.json').then(r => r.json()).then(d => { document.getElementById('t').textContent = d.text })
            </script></body></html>
            """,
            "http://site.test/c/1.json": "{\"text\": \"正文来自脚本\"}",
        ])
        let source = try loadSource("""
        {"bookSourceName": "scripted", "bookSourceUrl": "http://site.test", "bookSourceType": 0,
         "ruleContent": {"content": "@js: java.webView(null, baseUrl, \\"document.getElementById('t').textContent\\") + '|' + java.webView('<b id=x>给定</b><script>x.textContent += String(6 * 7)</script>', 'http://site.test/c/given.html', 'x.textContent')"}}
        """)
        let engine = SourceEngine(source: source, transport: site, options: EngineOptions(webView: Browsers.standard))
        let content = try await engine.content(of: Chapter(index: 0, title: "一", url: "http://site.test/c/1.html"))
        #expect(content.text == "正文来自脚本|给定42")
        // The markup given was loaded as it is: its URL was never fetched.
        #expect(!site.requests.map(\.url).contains("http://site.test/c/given.html"))
    }

    static func finished(_ events: AsyncThrowingStream<DownloadEvent, any Error>) async throws -> DownloadSummary? {
        var summary: DownloadSummary?
        for try await event in events {
            if case .finished(let done) = event { summary = done }
        }
        return summary
    }

    static func expectBook(_ book: StoredBook, in store: LibraryStore) throws {
        #expect(book.name == "夜雨归舟")
        #expect(book.author == "灯下客")
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.title) == ScriptedSite.titles)
        for (index, chapter) in chapters.enumerated() {
            #expect(try store.text(bookID: book.id, url: chapter.url) == ScriptedSite.text(index + 1))
        }
    }
}
