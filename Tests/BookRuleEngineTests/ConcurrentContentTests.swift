import Testing
@testable import BookRuleEngine
import TestSupport

/// One engine serving many tasks at once, as `bookrule fetch` and apps use it. Run under ThreadSanitizer by
/// `make sanitize`.
@Suite("Concurrency: one SourceEngine, many content(of:) calls at once")
struct ConcurrentContentTests {
    /// Every rule goes through libxml2's XPath evaluator with functions (none fits `SimpleXPath`), so each
    /// evaluation runs a compiled expression's function steps: the part libxml2 2.9 writes into.
    static let source = """
    {
      "bookSourceUrl": "https://novel.test",
      "bookSourceName": "Concurrent Test",
      "ruleContent": {
        "content": "//div[contains(@class, 'content') and starts-with(@id, 'chapter')]",
        "title": "normalize-space(//h1[contains(text(), '章')])",
        "replaceRegex": "##本站.*?更新"
      }
    }
    """

    static func page(_ number: Int) -> String {
        let paragraphs = (1...40).map { "<p>　　第\(number)章的第\($0)段，正文。</p>" }.joined()
        return """
        <html><body><h1>  第\(number)章   标题 </h1><div class="read content" id="chapter-\(number)">\(paragraphs)
        <p>本站最快更新</p></div><div class="footer">页脚</div></body></html>
        """
    }

    @Test("eight concurrent content(of:) calls of one engine whose rules use XPath functions all read their own chapter")
    func eightAtOnce() async throws {
        let chapters = (1...8).map { Chapter(index: $0 - 1, title: "\($0)", url: "https://novel.test/c/\($0).html") }
        var pages: [String: String] = [:]
        for chapter in chapters { pages[chapter.url] = Self.page(chapter.index + 1) }
        let engine = SourceEngine(source: try loadSource(Self.source), transport: TestSite(html: pages))
        for _ in 0..<10 {
            let texts = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for chapter in chapters {
                    group.addTask { (chapter.index, try await engine.content(of: chapter).text) }
                }
                var texts: [Int: String] = [:]
                for try await (index, text) in group { texts[index] = text }
                return texts
            }
            for chapter in chapters {
                let number = chapter.index + 1
                let text = try #require(texts[chapter.index])
                #expect(text.hasPrefix("第\(number)章的第1段，正文。"), "\(text.prefix(40))")
                #expect(text.contains("第\(number)章的第40段，正文。"))
                #expect(!text.contains("本站") && !text.contains("页脚"))
            }
        }
    }
}
