import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleLibrary
import TestSupport

@Suite("Books on several sources: known sources, switching, where each text came from")
struct SourceSwitchTests {
    static func library() throws -> LibraryStore {
        let path = NSTemporaryDirectory() + "bookrule-switch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try LibraryStore(path: path + "/library.sqlite")
    }

    static func record(_ host: String) -> BookSourceRecord {
        BookSourceRecord(sourceURL: "http://\(host)", sourceName: "source \(host)", json: #"{"bookSourceUrl":"http://\#(host)"}"#)
    }

    static func info(_ host: String) -> BookInfo {
        BookInfo(url: "http://\(host)/book/1/", name: MirrorSite.bookName, author: MirrorSite.author, intro: "", kind: "",
                 lastChapter: "", updateTime: "", coverURL: "", tocURL: "http://\(host)/book/1/", wordCount: "",
                 variables: [:], warnings: [])
    }

    static func toc(_ host: String, _ numbers: ClosedRange<Int>, style: MirrorSite.TitleStyle) -> [Chapter] {
        numbers.enumerated().map {
            Chapter(index: $0.offset, title: MirrorSite.title($0.element, style: style), url: "http://\(host)/book/1/\($0.element).html")
        }
    }

    @Test("a version 2 library gains known sources and text origins; a book's source is known from the start")
    func migration() throws {
        let path = NSTemporaryDirectory() + "bookrule-switch-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        do {
            let raw = try SQLiteDatabase(path: path + "/library.sqlite")
            try raw.execute(LibraryStore.migrations[0] + LibraryStore.migrations[1], purpose: "test")
            try raw.execute("PRAGMA application_id = \(LibraryStore.applicationID)", purpose: "test")
            try raw.execute("PRAGMA user_version = 2", purpose: "test")
            try raw.execute("""
                INSERT INTO sources VALUES ('http://a.test', 'A', '{}', 0);
                INSERT INTO books (id, source_url, url, name, author, intro, kind, cover_url, toc_url, variables,
                                   created_at, updated_at)
                VALUES (3, 'http://a.test', 'http://a.test/book/1/', 'Old', '', '', '', '', '', '{"k":"v"}', 0, 0);
                INSERT INTO chapters (book_id, key, url, position, title, is_volume, state)
                VALUES (3, 'http://a.test/1', 'http://a.test/1', 0, '第1章', 0, 'done'),
                       (3, 'http://a.test/2', 'http://a.test/2', 1, '第2章', 0, 'pending');
                """, purpose: "test")
        }
        let store = try LibraryStore(path: path + "/library.sqlite")
        let known = try store.knownSources(bookID: 3)
        #expect(known.map(\.sourceURL) == ["http://a.test"])
        #expect(known.first?.isCurrent == true && known.first?.variables == ["k": "v"] && known.first?.tocLength == nil)
        #expect(try store.chapters(bookID: 3).map(\.sourceURL) == ["http://a.test", nil])

        let fresh = try Self.library()
        let book = try fresh.upsertBook(source: Self.record("a.test"), info: Self.info("a.test"))
        #expect(try fresh.knownSources(bookID: book.id).map(\.bookURL) == ["http://a.test/book/1/"])
    }

    @Test("switch: the alignment is reported first; then saved text stays, new chapters are pending, unmatched are kept unlisted")
    func switching() throws {
        let store = try Self.library()
        let book = try store.upsertBook(source: Self.record("a.test"), info: Self.info("a.test"))
        try store.mergeTOC(bookID: book.id, chapters: Self.toc("a.test", 1...1200, style: .arabic))
        for number in 1...1000 {
            try store.saveChapter(bookID: book.id, url: "http://a.test/book/1/\(number).html", text: MirrorSite.text(number))
        }
        let incoming = Self.toc("b.test", 1...1205, style: .chinese)
        let plan = try store.plannedSwitch(bookID: book.id, chapters: incoming)
        #expect(plan.alignment.matches.count == 1200)
        #expect(plan.alignment.matches.allSatisfy { $0.saved == $0.incoming && $0.isCertain })
        #expect(plan.alignment.new == Array(1200..<1205))
        #expect(plan.textsKept == 1000 && plan.textsUnlisted == 0)
        // Planning changed nothing.
        #expect(try store.book(id: book.id)?.sourceURL == "http://a.test")

        let done = try store.switchSource(bookID: book.id, source: Self.record("b.test"), info: Self.info("b.test"), chapters: incoming)
        #expect(done == plan)
        let moved = try #require(try store.book(id: book.id))
        #expect(moved.sourceURL == "http://b.test" && moved.url == "http://b.test/book/1/")
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.title) == incoming.map(\.title))
        #expect(chapters.filter { $0.state == .done }.count == 1000)
        #expect(try store.text(bookID: book.id, url: "http://b.test/book/1/7.html") == MirrorSite.text(7))
        #expect(chapters[6].sourceURL == "http://a.test")
        #expect(try store.chaptersToFetch(bookID: book.id).map(\.url).first == "http://b.test/book/1/1001.html")
        let known = try store.knownSources(bookID: book.id)
        #expect(known.map(\.sourceURL) == ["http://b.test", "http://a.test"])
        #expect(known.first?.tocLength == 1205 && known.first?.latestChapter == MirrorSite.title(1205, style: .chinese))

        // A saved chapter the new source lacks is kept, no longer listed.
        let shorter = Self.toc("c.test", 2...1200, style: .spaced)
        let third = try store.switchSource(bookID: book.id, source: Self.record("c.test"), info: Self.info("c.test"), chapters: shorter)
        #expect(third.alignment.unmatched.count == 6)  // chapter 1 and the five new ones of b.test
        #expect(third.textsUnlisted == 1)
        let after = try store.chapters(bookID: book.id)
        #expect(after.filter(\.inTOC).count == 1199)
        #expect(after.last { !$0.inTOC && $0.state == .done }?.title == MirrorSite.title(1, style: .chinese))
        #expect(try store.text(bookID: book.id, url: "http://a.test/book/1/1.html") == nil)
        #expect(try store.text(bookID: book.id, url: "http://b.test/book/1/1.html") == MirrorSite.text(1))
    }

    @Test("a text saved from another source records that source")
    func origin() throws {
        let store = try Self.library()
        let book = try store.upsertBook(source: Self.record("a.test"), info: Self.info("a.test"))
        try store.mergeTOC(bookID: book.id, chapters: Self.toc("a.test", 1...2, style: .arabic))
        try store.saveChapter(bookID: book.id, url: "http://a.test/book/1/1.html", text: "x")
        try store.saveChapter(bookID: book.id, url: "http://a.test/book/1/2.html", text: "y", sourceURL: "http://b.test")
        #expect(try store.chapters(bookID: book.id).map(\.sourceURL) == ["http://a.test", "http://b.test"])
    }

    @Test("moving onto a source where another book is that copy already is refused, changing nothing")
    func refused() throws {
        let store = try Self.library()
        let first = try store.upsertBook(source: Self.record("a.test"), info: Self.info("a.test"))
        let second = try store.upsertBook(source: Self.record("b.test"), info: Self.info("b.test"))
        #expect(throws: LibraryError.bookOnSourceExists(bookID: first.id, otherBookID: second.id, sourceURL: "http://b.test")) {
            try store.switchSource(bookID: first.id, source: Self.record("b.test"), info: Self.info("b.test"), chapters: [])
        }
        #expect(try store.book(id: first.id)?.sourceURL == "http://a.test")
    }
}
