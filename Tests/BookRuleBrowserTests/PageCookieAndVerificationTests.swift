import BookRuleBrowser
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import BookRuleLocking
import Foundation
import Testing
import TestSupport

/// A login store in memory: with it, a source's transport is the stored login over the cookie jar, as in every
/// command of the CLI.
final class MemoryLogins: LoginStore {
    private let logins = Locked<[String: StoredLogin]>([:])
    func login(forSource sourceKey: String) throws -> StoredLogin? { logins.withLock { $0[sourceKey] } }
    func save(_ login: StoredLogin?, forSource sourceKey: String) throws { logins.withLock { $0[sourceKey] = login } }
}

@Suite("Cookies pages set are the source's cookies; verification pages (java.startBrowserAwait) in the headless browser",
       .needsChromium, .timeLimit(.minutes(3 * TestTime.scale)))
struct PageCookieAndVerificationTests {
    static func fetcher() -> PoliteFetcher {
        PoliteFetcher(transport: CurlTransport(),
                      policy: PolitenessPolicy(delay: .milliseconds(30), failureDelay: .milliseconds(60), jitter: false))
    }

    /// The source's transport as every command builds it: the stored login over the source's cookie jar.
    static func sourceTransport(_ source: BookSource, over upstream: any HTTPTransport) -> SourceTransport {
        SourceTransport(for: source, over: upstream, pacing: nil, logins: MemoryLogins())
    }

    @Test("a cookie the TOC page's script sets reaches the plain chapter requests (under a stored login and a recording), and the recording replays the same book")
    func scriptCookieReachesPlainChapters() async throws {
        let site = try VerificationSite()
        let source = try loadSource(site.cookieSourceJSON())
        let fetcher = Self.fetcher()
        let recorder = RecordingTransport(upstream: fetcher)
        let scratch = try ScratchDirectory("page-cookies")
        let options = EngineOptions(webView: Browsers.standard)

        let live = try LibraryStore(path: scratch.path + "/live.sqlite")
        let fetch = BookFetch(source: source, transport: recorder, pacing: fetcher, logins: MemoryLogins(),
                              store: live, options: options)
        #expect(fetch.engine.login != nil)
        let summary = try #require(try await WebViewSourceTests.finished(fetch.run(bookURL: site.base + "/book/1/")))
        #expect(summary.failures.map(\.error) == [])
        try Self.expectBook(summary.book, in: live)
        let chapterHits = site.hits.filter { $0.target.hasPrefix("/chapter/") }
        #expect(chapterHits.count == 3)
        #expect(chapterHits.allSatisfy { $0.cookie.contains(VerificationSite.gate) }, "\(chapterHits.map(\.cookie))")
        // The cookie is in the source's jar, which the engine holds beside the login that wraps it.
        #expect(fetch.engine.cookies?.cookies(for: site.base + "/chapter/1.html").contains(VerificationSite.gate) == true)

        // Offline: the same book from the recording, and nothing reaches the server.
        let recording = scratch.path + "/site.har"
        try recorder.recording.write(to: recording)
        let served = site.hits.count
        let replayed = try LibraryStore(path: scratch.path + "/replayed.sqlite")
        let offline = BookFetch(source: source, transport: try HARReplayTransport(contentsOf: recording), logins: MemoryLogins(),
                                store: replayed, options: options, keepsScriptCache: false)
        let again = try #require(try await WebViewSourceTests.finished(offline.run(bookURL: site.base + "/book/1/")))
        #expect(again.failures.map(\.error) == [])
        try Self.expectBook(again.book, in: replayed)
        #expect(site.hits.count == served)
    }

    @Test("a source with enabledCookieJar false keeps no cookie a page set: its plain chapters go without it")
    func noJarKeepsNoPageCookie() async throws {
        let site = try VerificationSite()
        let json = site.cookieSourceJSON().replacingOccurrences(of: "\"bookSourceType\": 0,", with: "\"bookSourceType\": 0, \"enabledCookieJar\": false,")
        let source = try loadSource(json)
        #expect(!source.enabledCookieJar)
        let scratch = try ScratchDirectory("page-cookies-off")
        let fetch = BookFetch(source: source, transport: Self.fetcher(), logins: MemoryLogins(),
                              store: try LibraryStore(path: scratch.path + "/library.sqlite"),
                              options: EngineOptions(webView: Browsers.standard))
        let summary = try #require(try await WebViewSourceTests.finished(fetch.run(bookURL: site.base + "/book/1/")))
        #expect(summary.failures.count == 3 && summary.failures.allSatisfy { $0.error.contains("403") }, "\(summary.failures.map(\.error))")
        #expect(fetch.engine.cookies == nil)
        #expect(site.hits.filter { $0.target.hasPrefix("/chapter/") }.allSatisfy { $0.cookie.isEmpty })
    }

    static func expectBook(_ book: StoredBook, in store: LibraryStore) throws {
        #expect(book.name == "守门人")
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.title) == VerificationSite.titles)
        for (index, chapter) in chapters.enumerated() {
            #expect(try store.text(bookID: book.id, url: chapter.url) == VerificationSite.text(index + 1))
        }
    }

    /// The content of the site's book page read by a source whose content rule calls `call`.
    static func content(_ site: VerificationSite, _ call: String, path: String = "/verify/page.html",
                        browser: ChromiumBrowser = Browsers.standard, over upstream: any HTTPTransport) async throws -> String {
        let source = try loadSource(site.verificationSourceJSON(call, path: path))
        let engine = SourceEngine(source: source, connection: sourceTransport(source, over: upstream),
                                  options: EngineOptions(webView: browser))
        return try await engine.content(of: Chapter(index: 0, title: "一", url: site.base + "/book/1/")).text
    }

    @Test("java.startBrowserAwait(url, title).body() passes a JavaScript challenge (token, cookie, reload) and answers the URL refetched with its cookie; replayed the same")
    func startBrowserAwaitPassesChallengeAndRefetches() async throws {
        let site = try VerificationSite()
        let recorder = RecordingTransport(upstream: Self.fetcher())
        let text = try await Self.content(site, "java.startBrowserAwait(PAGE, '验证').body()", over: recorder)
        #expect(text == VerificationSite.verifiedText)
        let hits = site.hits.filter { $0.target == "/verify/page.html" }
        // The challenge, the browser's reload with the cookie its script set, and the refetch with that cookie.
        #expect(hits.count == 3, "\(hits.map(\.cookie))")
        #expect(hits.first?.cookie.contains(VerificationSite.pass) == false)
        #expect(hits.dropFirst().allSatisfy { $0.cookie.contains(VerificationSite.pass) })
        #expect(site.hits.allSatisfy { !$0.userAgent.contains("Headless") && !$0.userAgent.isEmpty })

        let served = site.hits.count
        let replay = HARReplayTransport(recording: recorder.recording)
        #expect(try await Self.content(site, "java.startBrowserAwait(PAGE, '验证').body()", over: replay) == VerificationSite.verifiedText)
        #expect(site.hits.count == served)
    }

    @Test("with refetchAfterSuccess false the answer is the page as the browser shows it, with no refetch; the response reads as Legado's StrResponse")
    func startBrowserAwaitWithoutRefetch() async throws {
        let site = try VerificationSite()
        let text = try await Self.content(site, "java.startBrowserAwait(PAGE, '验证', false).body()", over: Self.fetcher())
        #expect(text == VerificationSite.verifiedText)
        #expect(site.hits.filter { $0.target == "/verify/page.html" }.count == 2)
        let described = try await Self.content(site, "(function () { var r = java.startBrowserAwait(PAGE, 't', false); return '<div id=\"text\">' + r.code() + ' ' + r.url() + '</div>'; })()",
                                               over: Self.fetcher())
        #expect(described == "200 \(site.base)/verify/page.html")
    }

    @Test("java.startBrowser(url, title) returns nothing but keeps the page's cookies in the source's jar, so the next plain request passes")
    func startBrowserKeepsCookies() async throws {
        let site = try VerificationSite()
        let text = try await Self.content(site, "(java.startBrowser(PAGE, '验证') === undefined ? '' : 'returned something') + java.ajax(PAGE)",
                                          over: Self.fetcher())
        #expect(text == VerificationSite.verifiedText)
        // The browser's look may catch the challenge page already passed (its script set the cookie) or after
        // its reload: two or three requests, the plain one last and with the cookie.
        let hits = site.hits.filter { $0.target == "/verify/page.html" }
        #expect((2...3).contains(hits.count))
        #expect(hits.last?.cookie.contains(VerificationSite.pass) == true)
    }

    /// A page limit long enough that the captcha page has loaded and been looked at on a loaded machine (with the
    /// 3 s browser the limit sometimes fell while it was still loading: a time-out, not the person case).
    static let captchaBrowser = ChromiumBrowser(limits: BrowserLimits(pageSeconds: TestTime.seconds(10)))

    @Test("a captcha that never passes is an error naming the URL and saying a person is needed, within the page's time limit", .tags(.realTime))
    func captchaNeedsPerson() async throws {
        let site = try VerificationSite()
        let started = ContinuousClock.now
        let error = await #expect(throws: (any Error).self) {
            _ = try await Self.content(site, "java.startBrowserAwait(PAGE, '验证').body()", path: "/captcha/page.html",
                                       browser: Self.captchaBrowser, over: Self.fetcher())
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains(site.base + "/captcha/page.html") && message.contains("a person is needed"), "\(message)")
        #expect(message.contains("captcha"), "\(message)")
        #expect(ContinuousClock.now - started < .seconds(TestTime.seconds(10) + 20))
    }
}
