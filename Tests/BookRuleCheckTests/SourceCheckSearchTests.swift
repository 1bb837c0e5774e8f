import Testing
import BookRuleLocking
import BookRuleJSON
import BookRuleDocument
import BookRuleRules
import BookRuleHTTP
import BookRuleEngine
import BookRuleLibrary
import BookRuleCheck
import TestSupport

@Suite("bookrule test's search step")
struct SourceCheckSearchTests {
    @Test("a source with no searchUrl is told it has nothing to search (start at a book page), not to set checkKeyWord")
    func noSearchURL() async throws {
        let source = try loadSource("""
            {"bookSourceUrl": "https://b.test", "bookSourceName": "no search",
             "ruleSearch": {"checkKeyWord": "星河"},
             "ruleBookInfo": {"name": "//h1/text()"},
             "ruleToc": {"chapterList": "//li/a", "chapterName": "text", "chapterUrl": "href"},
             "ruleContent": {"content": "//div"}}
            """)
        let site = TestSite(html: ["https://b.test/book/1": "<h1>星河</h1><ul><li><a href='/c/1'>一</a></li></ul>",
                                   "https://b.test/c/1": "<div>\(String(repeating: "正文", count: 40))</div>"])
        let report = await SourceCheck(source: source, transport: site).run()
        let search = try #require(report.steps.first { $0.name == "search" })
        #expect(search.status == .failed && search.error == SourceCheck.noSearchURL)
        #expect(search.error?.contains("checkKeyWord") == false)
        #expect(site.requests.isEmpty, "nothing was searched")

        let started = await SourceCheck(source: source, transport: site, options: CheckOptions(bookURL: "https://b.test/book/1")).run()
        let skipped = try #require(started.steps.first { $0.name == "search" })
        #expect(skipped.status == .skipped && skipped.error == SourceCheck.noSearchURL)
        #expect(started.steps.first { $0.name == "book info" }?.status == .passed)
    }
}
