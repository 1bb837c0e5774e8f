import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleLibrary
import TestSupport

@Suite("Library store: reading progress and the sources table")
struct ReadingProgressTests {
    static let source = BookSourceRecord(sourceURL: "https://progress.test", sourceName: "Progress Test",
                                         json: #"{"bookSourceUrl":"https://progress.test","bookSourceName":"Progress Test"}"#)

    static func book(_ store: LibraryStore) throws -> StoredBook {
        try store.upsertBook(source: source, info: BookInfo(
            url: "https://progress.test/book/1/", name: "书", author: "", intro: "", kind: "", lastChapter: "", updateTime: "",
            coverURL: "", tocURL: "", wordCount: "", variables: [:], warnings: []))
    }

    @Test("A book's reading progress is saved, replaced by the next, kept across reopening, and goes with the book")
    func progress() throws {
        let directory = try ScratchDirectory("progress")
        let path = directory.path + "/library.sqlite"
        let store = try LibraryStore(path: path)
        let book = try Self.book(store)
        #expect(try store.readingProgress().isEmpty)
        let first = ReadingProgress(chapterIndex: 2, chapterPosition: 10, chapterTitle: "第3章", readAt: Date(timeIntervalSince1970: 1000))
        let second = ReadingProgress(chapterIndex: 5, chapterPosition: 0, chapterTitle: "第6章", readAt: Date(timeIntervalSince1970: 2000))
        try store.saveProgress(bookID: book.id, first)
        try store.saveProgress(bookID: book.id, second)
        #expect(try LibraryStore(path: path).readingProgress() == [book.id: second])
        #expect(throws: LibraryError.unknownBook(id: 99)) { try store.saveProgress(bookID: 99, first) }
        try store.removeBook(id: book.id)
        #expect(try store.readingProgress().isEmpty)
    }

    @Test("Sources are saved and replaced by URL, listed with their JSON as saved, and one a book is on is not deleted")
    func sourcesTable() throws {
        let directory = try ScratchDirectory("sources-table")
        let store = try LibraryStore(path: directory.path + "/library.sqlite")
        _ = try Self.book(store)
        let other = BookSourceRecord(sourceURL: "https://other.test", sourceName: "Other", json: #"{"b":1,"a":2}"#)
        try store.saveSources([other])
        #expect(try store.storedSources() == [other, Self.source])
        let renamed = BookSourceRecord(sourceURL: "https://other.test", sourceName: "Renamed", json: #"{"a":3}"#)
        try store.saveSources([renamed])
        #expect(try store.storedSource(url: "https://other.test") == renamed)
        #expect(try store.deleteSources(urls: ["https://other.test", Self.source.sourceURL]) == [Self.source.sourceURL])
        #expect(try store.storedSources() == [Self.source])
    }
}
