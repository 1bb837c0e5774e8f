import BookRule
import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule fetch refuses an empty book")
struct FetchRefusalTests {
    @Test("fetch of a book whose TOC list selects nothing exits 1 naming ruleToc.chapterList and adds no book")
    func emptyTOCFails() async throws {
        let folder = try ScratchDirectory("fetch-empty-toc")
        try """
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "empty",
             "ruleBookInfo": {"name": "//h1/text()"},
             "ruleToc": {"chapterList": "//ul[@id='list']/li/a", "chapterName": "text", "chapterUrl": "href"},
             "ruleContent": {"content": "//div[@id='c']"}}
            """.write(toFile: folder.path + "/source.json", atomically: true, encoding: .utf8)
        try "<h1>星河</h1><ul id='other'><li><a href='1.html'>第一章</a></li></ul>"
            .write(toFile: folder.path + "/book.html", atomically: true, encoding: .utf8)
        let library = folder.path + "/library.sqlite"
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run(["fetch", "--source", folder.path + "/source.json", "--saved", folder.path + "/book.html",
                                            "https://novel.test/book/1/", "--library", library], terminal: terminal)
        #expect(status == 1, "\(terminal.errors)")
        #expect(terminal.errors.contains("error: ruleToc.chapterList selected nothing on https://novel.test/book/1/"), "\(terminal.errors)")
        #expect(!terminal.errors.contains("0/0 chapters saved"))
        #expect(try LibraryStore(path: library).books().isEmpty)
    }
}
