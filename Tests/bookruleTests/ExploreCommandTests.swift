import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule explore on saved pages")
struct ExploreCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    /// A source with a header and two categories, and the saved second page of 玄幻.
    func fixture() throws -> (ScratchDirectory, source: String, page: String) {
        let directory = try ScratchDirectory("explore")
        let source = directory.path + "/source.json"
        try """
        {"bookSourceUrl": "https://novel.test", "bookSourceName": "Explore CLI",
         "exploreUrl": "分类::\\n玄幻::/sort/1/{{page}}.html&&都市::/sort/2/{{page}}.html",
         "ruleExplore": {"bookList": "//ul[@class='list']/li", "name": "//a/text()", "bookUrl": "//a/@href"}}
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let page = directory.path + "/sort-1-2.html"
        try "<ul class='list'><li><a href='/book/7/'>星河旅人</a></li><li><a href='/book/8/'>长夜灯火</a></li></ul>"
            .write(toFile: page, atomically: true, encoding: .utf8)
        return (directory, source, page)
    }

    @Test("without a category, explore lists the categories with headers in brackets, fetching nothing")
    func listsCategories() async throws {
        let (directory, source, _) = try fixture()
        _ = directory
        let result = await run(["explore", "--source", source])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").map(String.init) == [
            "[分类]", "玄幻  /sort/1/{{page}}.html", "都市  /sort/2/{{page}}.html", "2 categor(ies)",
        ])
    }

    @Test("explore CATEGORY --page 2 lists that page's books with their resolved URLs")
    func listsACategoryPage() async throws {
        let (directory, source, page) = try fixture()
        _ = directory
        let result = await run(["explore", "--source", source, "玄幻", "--page", "2",
                                "--saved", "https://novel.test/sort/1/2.html=\(page)"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("2 result(s) from https://novel.test/sort/1/2.html"), "\(result.output)")
        #expect(result.output.contains("1. 星河旅人\n   https://novel.test/book/7/"), "\(result.output)")
    }

    @Test("an unknown category is a usage error (exit 2) listing the categories there are")
    func unknownCategory() async throws {
        let (directory, source, _) = try fixture()
        _ = directory
        let result = await run(["explore", "--source", source, "武侠"])
        #expect(result.status == 2)
        #expect(result.errors.contains("no explore category is called \"武侠\"; the source has: \"玄幻\", \"都市\""), "\(result.errors)")
    }
}
