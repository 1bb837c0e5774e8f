import Foundation
import Testing
@testable import BookRuleEngine
import BookRuleLibrary
import TestSupport

@Suite("Export with Chinese script conversion (OpenCC)",
       .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/opencc/t2s.json"), "needs libopencc-data"))
struct ExportConversionTests {
    /// A library with one book of two traditional-script chapters, saved.
    static func library() throws -> (LibraryStore, StoredBook, String) {
        let folder = try scratchDirectory()
        let (store, book) = try savedTwoChapterBook(in: folder, name: "漢字之書", author: "無名", intro: "簡介：漢字", chapters: [
            ("第一章 漢字", "漢字的歷史。"), ("第二章 書籍", "這本書籍。"),
        ])
        return (store, book, folder)
    }

    @Test("t2s converts the title, author, chapter titles and text of a TXT export: 漢字 → 汉字")
    func traditionalToSimplified() throws {
        let (store, book, folder) = try Self.library()
        let export = try LibraryExport(book, store: store).converted(.traditionalToSimplified)
        #expect(export.book.title == "汉字之书")
        #expect(export.book.author == "无名")
        #expect(export.book.chapters.map(\.title) == ["第一章 汉字", "第二章 书籍"])
        let path = try export.write(.txt, to: folder + "/book.txt")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("汉字的历史。"))
        #expect(text.contains("这本书籍。"))
        #expect(!text.contains("漢字"))
        // s2t goes back; the saved text itself is unchanged.
        let back = try export.converted(.simplifiedToTraditional)
        #expect(back.book.chapters.first?.text == "漢字的歷史。")
        #expect(try store.text(bookID: book.id, url: "http://127.0.0.9/book/1/1.html") == "漢字的歷史。")
    }
}
