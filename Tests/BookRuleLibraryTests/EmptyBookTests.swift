import Foundation
import Testing
@testable import BookRuleLibrary
import BookRuleLocking
import BookRuleJSON
import BookRuleDocument
import BookRuleScript
import BookRuleHTTP
import BookRuleEngine
import TestSupport

/// A book that would be stored as nothing (no chapters) or as no one (no title) is refused before the library
/// changes.
@Suite("BookFetch refuses a book with no chapters or no title")
struct EmptyBookTests {
    static let bookURL = "https://novel.test/book/1/"

    static func site(list: String) -> TestSite {
        TestSite(html: [
            bookURL: "<html><body><h1>星河</h1><ul id='list'>\(list)</ul></body></html>",
            "https://novel.test/book/1/1.html": "<div id='c'>第一章的正文，足够长的一段文字。</div>",
        ])
    }

    static func source(bookInfo: Bool) throws -> BookSource {
        try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "refusals",
             \(bookInfo ? #""ruleBookInfo": {"name": "//h1/text()"},"# : "")
             "ruleToc": {"chapterList": "//ul[@id='list']/li/a", "chapterName": "text", "chapterUrl": "href"},
             "ruleContent": {"content": "//div[@id='c']"}}
            """)
    }

    static func run(_ fetch: BookFetch, name: String? = nil) async throws -> DownloadSummary? {
        var summary: DownloadSummary?
        for try await event in fetch.run(bookURL: bookURL, name: name) {
            if case .finished(let final) = event { summary = final }
        }
        return summary
    }

    @Test("a TOC whose list rule selects nothing fails naming ruleToc.chapterList, and no 0/0 book is added")
    func emptyTOCAddsNothing() async throws {
        let folder = try ScratchDirectory("empty-toc")
        let store = try LibraryStore(path: folder.path + "/library.sqlite")
        let fetch = BookFetch(source: try Self.source(bookInfo: true), transport: Self.site(list: ""), store: store)
        do {
            _ = try await Self.run(fetch)
            Issue.record("an empty TOC was accepted")
        } catch let error as DownloadError {
            guard case .emptyTOC(let url) = error else { throw error }
            #expect(url == Self.bookURL)
            #expect(error.field == "ruleToc.chapterList")
            #expect(error.description.contains("ruleToc.chapterList selected nothing on \(Self.bookURL)"))
        }
        #expect(try store.books().isEmpty)
    }

    @Test("without ruleBookInfo the title is the search result's name, then the library's; with neither the book is refused")
    func untitledBook() async throws {
        let folder = try ScratchDirectory("untitled")
        let store = try LibraryStore(path: folder.path + "/library.sqlite")
        let site = Self.site(list: "<li><a href='1.html'>第一章</a></li>")
        let fetch = BookFetch(source: try Self.source(bookInfo: false), transport: site, store: store)

        // A bare URL and no ruleBookInfo: no title anywhere, so nothing is stored.
        do {
            _ = try await Self.run(fetch)
            Issue.record("an untitled book was stored")
        } catch let error as DownloadError {
            guard case .untitledBook(let url) = error else { throw error }
            #expect(url == Self.bookURL && error.field == "ruleBookInfo.name")
        }
        #expect(try store.books().isEmpty)

        // The search result's name, as Legado keeps it.
        let summary = try #require(try await Self.run(fetch, name: "搜到的星河"))
        #expect(summary.book.name == "搜到的星河" && summary.book.doneCount == 1)
        // A rerun by URL alone (an update) keeps the title the library has.
        let again = try #require(try await Self.run(fetch))
        #expect(again.book.name == "搜到的星河" && again.book.id == summary.book.id)
        #expect(try store.books().count == 1)
    }
}
