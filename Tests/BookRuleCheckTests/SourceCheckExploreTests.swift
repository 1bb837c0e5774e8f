import Testing
import BookRuleHTTP
import BookRuleEngine
import BookRuleCheck
import TestSupport

@Suite("bookrule test's explore step")
struct SourceCheckExploreTests {
    /// A one-chapter book with an explore screen (a header and two categories); `explore` replaces the
    /// ruleExplore section.
    func source(explore: String = #"{"bookList": "//ul[@class='list']/li", "name": "//a/text()", "bookUrl": "//a/@href"}"#) throws -> BookSource {
        try loadSource("""
            {"bookSourceUrl": "https://e.test", "bookSourceName": "explore",
             "exploreUrl": "分类::\\n玄幻::/sort/1/{{page}}.html&&都市::/sort/2/{{page}}.html",
             "ruleExplore": \(explore),
             "ruleBookInfo": {"name": "//h1/text()"},
             "ruleToc": {"chapterList": "//li/a", "chapterName": "text", "chapterUrl": "href"},
             "ruleContent": {"content": "//div"}}
            """)
    }

    let pages = [
        "https://e.test/book/1": "<h1>星河</h1><ul><li><a href='/c/1'>一</a></li></ul>",
        "https://e.test/c/1": "<div>\(String(repeating: "正文", count: 40))</div>",
        "https://e.test/sort/1/1.html": "<ul class='list'><li><a href='/book/7/'>星河旅人</a></li><li><a href='/book/8/'>长夜灯火</a></li></ul>",
    ]

    @Test("a source with exploreUrl is checked on its first category's first page, every explore rule reported")
    func explorePasses() async throws {
        let site = TestSite(html: pages)
        let report = await SourceCheck(source: try source(), transport: site, options: CheckOptions(bookURL: "https://e.test/book/1")).run()
        let explore = try #require(report.steps.first { $0.name == "explore" })
        #expect(explore.status == .passed, "\(explore)")
        #expect(explore.checks.map(\.name) == ["categories listed", "books found", "book URLs are absolute http(s)"])
        #expect(explore.checks.first?.detail == "2 categor(ies), 1 header(s)")
        #expect(explore.checks[1].detail == "2 book(s) in \"玄幻\" (/sort/1/{{page}}.html)")
        #expect(explore.requests.map(\.url) == ["https://e.test/sort/1/1.html"])
        #expect(Set(explore.rules.map(\.field)).isSuperset(of: ["ruleExplore.bookList", "ruleExplore.name", "ruleExplore.bookUrl"]))
        #expect(report.passed)
    }

    @Test("a broken explore rule fails the explore step and names the rule that found nothing")
    func brokenRuleFails() async throws {
        let site = TestSite(html: pages)
        let broken = try source(explore: #"{"bookList": "//ul[@class='books']/li", "name": "//a/text()", "bookUrl": "//a/@href"}"#)
        let report = await SourceCheck(source: broken, transport: site, options: CheckOptions(bookURL: "https://e.test/book/1")).run()
        let explore = try #require(report.steps.first { $0.name == "explore" })
        #expect(explore.status == .failed)
        #expect(explore.checks.first { $0.name == "books found" }?.passed == false)
        let list = try #require(explore.rules.first { $0.field == "ruleExplore.bookList" })
        #expect(list.matches == 0 && list.emptyRuns == 1)
        #expect(!report.passed)
        #expect(report.steps.filter { $0.name != "explore" }.allSatisfy { $0.status != .failed })
    }

    @Test("a replayed fixture without the explore page skips the step, saying how to record it; a source without exploreUrl has no step")
    func fixtureWithoutExplorePage() async throws {
        let saved = pages.filter { !$0.key.contains("/sort/") }.map { BookRuleHTTP.SavedPage(url: $0.key, body: Array($0.value.utf8), file: $0.key) }
        let replay = SavedPageTransport(pages: saved)
        let report = await SourceCheck(source: try source(), transport: replay, options: CheckOptions(bookURL: "https://e.test/book/1")).run()
        let explore = try #require(report.steps.first { $0.name == "explore" })
        #expect(explore.status == .skipped)
        #expect(explore.error?.hasPrefix("the fixture has no explore page (bookrule test --record records it): ") == true, "\(explore.error ?? "")")
        #expect(explore.error?.contains("https://e.test/sort/1/1.html") == true)
        #expect(report.passed)

        let plain = try loadSource("""
            {"bookSourceUrl": "https://e.test", "bookSourceName": "plain", "ruleBookInfo": {"name": "//h1/text()"},
             "ruleToc": {"chapterList": "//li/a", "chapterName": "text", "chapterUrl": "href"}, "ruleContent": {"content": "//div"}}
            """)
        let without = await SourceCheck(source: plain, transport: TestSite(html: pages), options: CheckOptions(bookURL: "https://e.test/book/1")).run()
        #expect(!without.steps.contains { $0.name == "explore" })
    }
}
