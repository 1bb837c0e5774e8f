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
    static func sourceTransport(_ source: BookSource, over upstream: any HTTPTransport) -> any HTTPTransport {
        SourceTransport(for: source, over: LoginStoreTransport(upstream, store: MemoryLogins()), pacing: nil).transport
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
        let fetch = BookFetch(source: source, transport: LoginStoreTransport(recorder, store: MemoryLogins()), pacing: fetcher,
                              store: live, options: options)
        #expect(fetch.engine.transport is SourceLoginTransport)
        let summary = try #require(try await WebViewSourceTests.finished(fetch.run(bookURL: site.base + "/book/1/")))
        #expect(summary.failures.map(\.error) == [])
        try Self.expectBook(summary.book, in: live)
        let chapterHits = site.hits.filter { $0.target.hasPrefix("/chapter/") }
        #expect(chapterHits.count == 3)
        #expect(chapterHits.allSatisfy { $0.cookie.contains(VerificationSite.gate) }, "\(chapterHits.map(\.cookie))")
        // The cookie is in the source's jar, found under the login that wraps it.
        #expect(fetch.engine.transport.cookieJar?.cookies(for: site.base + "/chapter/1.html").contains(VerificationSite.gate) == true)

        // Offline: the same book from the recording, and nothing reaches the server.
        let recording = scratch.path + "/site.har"
        try recorder.recording.write(to: recording)
        let served = site.hits.count
        let replayed = try LibraryStore(path: scratch.path + "/replayed.sqlite")
        let offline = BookFetch(source: source, transport: LoginStoreTransport(try HARReplayTransport(contentsOf: recording), store: MemoryLogins()),
                                store: replayed, options: options, keepsScriptCache: false)
        let again = try #require(try await WebViewSourceTests.finished(offline.run(bookURL: site.base + "/book/1/")))
        #expect(again.failures.map(\.error) == [])
        try Self.expectBook(again.book, in: replayed)
        #expect(site.hits.count == served)
    }

    static func expectBook(_ book: StoredBook, in store: LibraryStore) throws {
        #expect(book.name == "守门人")
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.title) == VerificationSite.titles)
        for (index, chapter) in chapters.enumerated() {
            #expect(try store.text(bookID: book.id, url: chapter.url) == VerificationSite.text(index + 1))
        }
    }
}
