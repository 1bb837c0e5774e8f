import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleHTTP
@testable import BookRuleLibrary
import TestSupport

/// An in-memory site that answers every request after `delay`, counting requests in flight.
private final class SlowSite: HTTPTransport, Sendable {
    let delay: Duration
    let state = Locked((inFlight: 0, maxInFlight: 0, served: 0))
    init(delay: Duration) { self.delay = delay }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        state.withLock {
            $0.inFlight += 1
            $0.maxInFlight = max($0.maxInFlight, $0.inFlight)
        }
        defer { state.withLock { $0.inFlight -= 1; $0.served += 1 } }
        try await Task.sleep(for: delay)
        let body = "<div class='book'><a class='name' href='/book/1/'>镜中之书</a><span class='author'>佚名</span></div>"
        return HTTPResponse(url: request.url, status: 200, headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")],
                            body: Array(body.utf8))
    }
}

@Suite("Searching many sources at once", .timeLimit(.minutes(2 * TestTime.scale)))
struct MultiSourceSearchTests {
    static func source(_ index: Int, host: String = "site") throws -> BookSource {
        try loadSource("""
        {"bookSourceUrl": "http://\(host)\(index).test", "bookSourceName": "source \(index)", "searchUrl": "/search?q={{key}}",
         "ruleSearch": {"bookList": "//div[@class='book']", "name": "//a/text()", "author": "//span[@class='author']/text()",
                        "bookUrl": "//a/@href"}}
        """)
    }

    @Test("at most `concurrency` sources run at once; every source answers once")
    func concurrencyCap() async throws {
        let site = SlowSite(delay: .milliseconds(30))
        let sources = try (0..<12).map { try Self.source($0) }
        let search = MultiSourceSearch(sources: sources, options: .init(concurrency: 3)) {
            SourceEngine(source: $0, transport: site)
        }
        var list = FoundBookList()
        var names: [String] = []
        for await outcome in search.results(for: "镜") {
            names.append(outcome.source.name)
            list.add(outcome)
        }
        #expect(Set(names).count == 12 && names.count == 12)
        #expect(site.state.withLock { $0.maxInFlight } <= 3)
        #expect(list.books.count == 1)
        #expect(list.books.first?.copies.count == 12)
        #expect(list.sourcesDone == 12 && list.failures.isEmpty)
    }

    @Test("a source slower than the timeout fails as a timeout, quickly, and the others still answer")
    func timeout() async throws {
        let slow = SlowSite(delay: .seconds(30))
        let fast = SlowSite(delay: .zero)
        let sources = [try Self.source(0, host: "slow"), try Self.source(1, host: "fast")]
        let search = MultiSourceSearch(sources: sources, options: .init(timeout: .milliseconds(200))) {
            SourceEngine(source: $0, transport: $0.url.contains("slow") ? slow : fast)
        }
        var list = FoundBookList()
        for await outcome in search.results(for: "镜") { list.add(outcome) }
        // Had the timeout not cut it, the slow site would have answered after 30 s with a book: the failure's kind
        // is the proof (a wall-clock bound here failed beside busy loops and added nothing).
        #expect(list.failures.map(\.source.name) == ["source 0"])
        #expect(list.failures.first?.failure.kind == .timeout)
        #expect(list.books.first?.copies.map(\.sourceName) == ["source 1"])
    }

    @Test("failures are sorted into kinds a reader can act on")
    func classification() {
        let cases: [(any Error, SearchFailure.Kind)] = [
            (EngineError.httpStatus(url: "u", status: 500), .httpError),
            (EngineError.httpStatus(url: "u", status: 403), .blocked),
            (EngineError.missingRule(field: "searchUrl"), .couldNotRun),
            (EngineError.fieldEmptyEverywhere(field: "name", list: "//div", elements: 3, cause: nil), .ruleBroke),
            (EngineError.transport(url: "u", error: FetchError.breakerOpen(host: "h", failures: 5)), .blocked),
            (EngineError.transport(url: "u", error: HTTPTransportError.timedOut(url: "u", seconds: 1)), .timeout),
            (EngineError.transport(url: "u", error: HTTPTransportError.connectionFailed(url: "u", message: "refused")), .httpError),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: 429, lastError: nil), .blocked),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: 502, lastError: nil), .httpError),
        ]
        for (error, kind) in cases { #expect(SearchFailure(classifying: error).kind == kind, "\(error)") }
    }

    @Test("books group by normalised name and author; a result without an author joins its book")
    func grouping() throws {
        func page(_ results: [(String, String)]) -> SearchPage {
            SearchPage(url: "u", results: results.map { SearchResult(name: $0.0, author: $0.1, bookURL: "http://x.test/\($0.0)") },
                       warnings: [])
        }
        var list = FoundBookList()
        let sources = try (0..<4).map { try Self.source($0) }
        list.add(SourceSearchOutcome(source: sources[0], result: .success(page([("镜中之书", "")])), seconds: 0))
        list.add(SourceSearchOutcome(source: sources[1], result: .success(page([("镜中之书（精校版）", "作者：佚名"), ("别的书", "某人")])), seconds: 0))
        list.add(SourceSearchOutcome(source: sources[2], result: .success(page([("镜中 之书", "佚名"), ("镜中之书", "佚名")])), seconds: 0))
        list.add(SourceSearchOutcome(source: sources[3], result: .success(page([("镜中之书", "另一人")])), seconds: 0))
        #expect(list.books.map(\.name) == ["镜中之书", "别的书", "镜中之书"])
        #expect(list.books[0].author == "作者：佚名")
        #expect(list.books[0].copies.map(\.sourceName) == ["source 0", "source 1", "source 2"])
        #expect(list.books[2].copies.map(\.sourceName) == ["source 3"])
    }

    @Test("ranked books are the same list in the same order whatever order the sources answered in")
    func rankingIgnoresAnswerOrder() throws {
        func page(_ results: [(String, String)]) -> SearchPage {
            SearchPage(url: "u", results: results.map { SearchResult(name: $0.0, author: $0.1, bookURL: "http://x.test/\($0.0)") },
                       warnings: [])
        }
        let sources = try (0..<4).map { try Self.source($0) }
        let broken = try Self.source(9)
        let pages = [
            page([("乙书", "乙"), ("丙书", "丙")]),
            page([("甲书", "甲"), ("丙书", "丙"), ("丁书", "丁")]),
            page([("戊书", "戊"), ("甲书", "甲"), ("丙书", "丙")]),
            page([("己书", "己"), ("丁书", "丁")]),
        ]
        func ranked(answering order: [Int]) -> [FoundBook] {
            var list = FoundBookList()
            for index in order {
                list.add(SourceSearchOutcome(source: sources[index], result: .success(pages[index]), seconds: 0))
            }
            // A failed source changes nothing.
            list.add(SourceSearchOutcome(source: broken, result: .failure(SearchFailureError(
                SearchFailure(classifying: EngineError.httpStatus(url: "u", status: 500)))), seconds: 0))
            return list.ranked(in: sources)
        }
        let expected = ranked(answering: [0, 1, 2, 3])
        // More copies first (丙 three); then the collection's first source with the book, and that source's order
        // of its results (甲 and 丁 both first on source 1, 甲 listed first); each book's copies in collection order.
        #expect(expected.map(\.name) == ["丙书", "甲书", "丁书", "乙书", "戊书", "己书"])
        #expect(expected[0].copies.map(\.sourceName) == ["source 0", "source 1", "source 2"])
        for order in [[3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2], [3, 0, 2, 1]] {
            #expect(ranked(answering: order) == expected, "answered in \(order)")
        }
    }

    @Test("three loopback mirrors and a broken source: the book once with three sources, the broken one named")
    func mirrors() async throws {
        let mirrors = try ["127.0.0.2", "127.0.0.3", "127.0.0.4"].map { try MirrorSite(host: $0, chapters: 20) }
        let broken = try FaultServer(host: "127.0.0.5") { _, _ in .status(500) }
        var sources = try mirrors.enumerated().map { try loadSource($1.sourceJSON(named: "mirror \($0 + 1)")) }
        sources.append(try loadSource(mirrors[0].sourceJSON(named: "broken").replacingOccurrences(of: mirrors[0].baseURL, with: broken.baseURL)))
        var policy = PolitenessPolicy.default
        policy.delay = .zero
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        let fetcher = PoliteFetcher(transport: CurlTransport(), policy: policy)
        let search = MultiSourceSearch(sources: sources, options: .init(timeout: .seconds(20))) {
            SourceEngine(source: $0, connection: SourceTransport(for: $0, over: fetcher))
        }
        var list = FoundBookList()
        for await outcome in search.results(for: "镜中") { list.add(outcome) }
        #expect(list.books.count == 1)
        #expect(Set(list.books.first?.copies.map(\.sourceName) ?? []) == ["mirror 1", "mirror 2", "mirror 3"])
        #expect(Set(list.books.first?.copies.map(\.bookURL) ?? []) == Set(mirrors.map(\.bookURL)))
        #expect(list.books.first?.copies.first?.lastChapter == MirrorSite.title(20, style: .arabic))
        #expect(list.failures.map(\.source.name) == ["broken"])
        #expect(list.failures.first?.failure.kind == .httpError)
    }
}
