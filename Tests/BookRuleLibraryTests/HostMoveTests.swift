import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleLibrary
import TestSupport

@Suite("Sites that move: HostMove, LibraryStore.moveHost and movedSource; CopyCertainty")
struct HostMoveTests {
    typealias Fixture = SourceSwitchTests

    @Test("a move reads hosts, host:port and origins; rewrites only URLs on the old host, keeping path, query and fragment")
    func movingURLs() throws {
        let move = try #require(HostMove(from: "old.test", to: "https://new.test:8443"))
        #expect(move.moved("http://old.test/book/1/2.html?x=1#p") == "https://new.test:8443/book/1/2.html?x=1#p")
        #expect(move.moved("https://OLD.test") == "https://new.test:8443")
        #expect(move.moved("http://old.test:8080/a") == nil)
        #expect(move.moved("http://cdn.old.test/a") == nil)
        let ported = try #require(HostMove(from: "127.0.0.2:5000", to: "127.0.0.3:6000"))
        #expect(ported.moved("http://127.0.0.2:5000/b/") == "http://127.0.0.3:6000/b/")
        #expect(ported.rewritten(#"{"bookSourceUrl": "http://127.0.0.2:5000", "searchUrl": "http://127.0.0.2:5000/s?k={{key}}", "x": "http://127.0.0.2:5001/"}"#)
                == #"{"bookSourceUrl": "http://127.0.0.3:6000", "searchUrl": "http://127.0.0.3:6000/s?k={{key}}", "x": "http://127.0.0.2:5001/"}"#)
        #expect(HostMove(from: "old.test", to: "old.test") == nil)
        #expect(HostMove(from: "ftp://old.test", to: "new.test") == nil)
        #expect(HostMove(from: "old.test/path", to: "new.test") == nil)
        #expect(HostMove(from: "", to: "new.test") == nil)
    }

    /// A library with one book of three chapters on `host` (the first two saved) and a second source.
    func library(host: String = "a.test") throws -> LibraryStore {
        let store = try Fixture.library()
        let json = #"{"bookSourceUrl":"http://\#(host)","bookSourceName":"A","searchUrl":"http://\#(host)/s?q={{key}}"}"#
        let book = try store.upsertBook(source: BookSourceRecord(sourceURL: "http://\(host)", sourceName: "A", json: json),
                                        info: Fixture.info(host))
        try store.mergeTOC(bookID: book.id, chapters: Fixture.toc(host, 1...3, style: .arabic))
        for number in 1...2 {
            try store.saveChapter(bookID: book.id, url: "http://\(host)/book/1/\(number).html", text: MirrorSite.text(number))
        }
        return store
    }

    @Test("moveHost rewrites the book, its chapters, known sources and its source's JSON in one go; texts stay")
    func movingABook() throws {
        let store = try library()
        try store.recordSource(bookID: 1, source: Fixture.record("b.test"), bookURL: "http://b.test/book/1/")
        let move = try #require(HostMove(from: "a.test", to: "c.test"))
        let result = try store.moveHost(move)
        #expect(result.bookIDs == [1] && result.chapters == 3 && result.textsKept == 2)
        #expect(result.sources.map(\.new) == ["http://c.test"])
        let book = try #require(try store.book(id: 1))
        #expect(book.url == "http://c.test/book/1/" && book.tocURL == "http://c.test/book/1/" && book.sourceURL == "http://c.test")
        #expect(try store.chapters(bookID: 1).map(\.url) == (1...3).map { "http://c.test/book/1/\($0).html" })
        #expect(try store.chapters(bookID: 1).map(\.sourceURL) == ["http://c.test", "http://c.test", nil])
        #expect(try store.text(bookID: 1, url: "http://c.test/book/1/2.html") == MirrorSite.text(2))
        let known = try store.knownSources(bookID: 1)
        #expect(known.map(\.bookURL) == ["http://c.test/book/1/", "http://b.test/book/1/"])
        #expect(known.first?.json.contains("http://c.test/s?q=") == true)
        // The TOC on the new host merges into the same chapters.
        let merge = try store.mergeTOC(bookID: 1, chapters: Fixture.toc("c.test", 1...4, style: .arabic))
        #expect(merge.added == 1 && merge.kept == 3)
        #expect(try store.moveHost(move).bookIDs.isEmpty)
        #expect(throws: LibraryError.unknownBook(id: 9)) { try store.moveHost(move, bookIDs: [9]) }
    }

    @Test("moving one book of a shared source leaves the other book on the old source and host")
    func movingOneBook() throws {
        let store = try library()
        let source = try #require(try store.knownSources(bookID: 1).first)
        var second = Fixture.info("a.test")
        second.url = "http://a.test/book/2/"
        second.tocURL = second.url
        second.name = "另一本"
        let other = try store.upsertBook(source: BookSourceRecord(sourceURL: source.sourceURL, sourceName: source.sourceName,
                                                                  json: source.json), info: second)
        try store.mergeTOC(bookID: other.id, chapters: [Chapter(index: 0, title: "第1章", url: "http://a.test/book/2/1.html")])
        let result = try store.moveHost(try #require(HostMove(from: "a.test", to: "c.test")), bookIDs: [1])
        #expect(result.bookIDs == [1])
        #expect(try store.book(id: 1)?.sourceURL == "http://c.test")
        let kept = try #require(try store.book(id: other.id))
        #expect(kept.sourceURL == "http://a.test" && kept.url == "http://a.test/book/2/")
        #expect(try store.chapters(bookID: other.id).map(\.url) == ["http://a.test/book/2/1.html"])
        #expect(try store.knownSources(bookID: other.id).first?.json == source.json)
    }

    @Test("a source file is recognised as moved only when its JSON is the stored one with one host replaced")
    func recognisingAMovedSource() throws {
        let store = try library()
        let moved = #"{"bookSourceUrl":"http://c.test","bookSourceName":"A","searchUrl":"http://c.test/s?q={{key}}"}"#
        let found = try #require(try store.movedSource(for: BookSourceRecord(sourceURL: "http://c.test", sourceName: "A", json: moved)))
        #expect(found.storedURL == "http://a.test" && found.bookIDs == [1])
        #expect(found.move.moved("http://a.test/x") == "http://c.test/x")
        // Same bookSourceUrl, the URLs inside moved.
        let inside = #"{"bookSourceUrl":"http://a.test","bookSourceName":"A","searchUrl":"http://c.test/s?q={{key}}"}"#
        let kept = BookSourceRecord(sourceURL: "http://a.test", sourceName: "A", json: inside)
        let keptFound = try #require(try store.movedSource(for: kept))
        #expect(keptFound.move.moved("http://a.test/x") == "http://c.test/x")
        try store.moveHost(keptFound.move, bookIDs: keptFound.bookIDs, replacing: (keptFound.storedURL, kept))
        let book = try #require(try store.book(id: 1))
        #expect(book.sourceURL == "http://a.test" && book.url == "http://c.test/book/1/")
        #expect(try store.knownSources(bookID: 1).first?.json == inside)
        let otherRules = #"{"bookSourceUrl":"http://c.test","bookSourceName":"A","searchUrl":"http://c.test/find?q={{key}}"}"#
        #expect(try store.movedSource(for: BookSourceRecord(sourceURL: "http://c.test", sourceName: "A", json: otherRules)) == nil)
        let otherName = moved.replacingOccurrences(of: "\"A\"", with: "\"B\"")
        #expect(try store.movedSource(for: BookSourceRecord(sourceURL: "http://c.test", sourceName: "B", json: otherName)) == nil)
    }

    @Test("a copy is certain when 90% of the reference's chapters match by title; number-only matches are not")
    func copyCertainty() {
        let reference = (1...10).map { (title: MirrorSite.title($0, style: .arabic), isVolume: false) }
        let same = CopyCertainty(reference: reference, incoming: (1...11).map { (title: MirrorSite.title($0, style: .chinese), isVolume: false) })
        #expect(same.isCertain && same.byTitle == 10 && same.new == 1 && same.reason == nil)
        let shorter = CopyCertainty(reference: reference, incoming: (1...9).map { (title: MirrorSite.title($0, style: .arabic), isVolume: false) })
        #expect(shorter.isCertain && shorter.unmatched == 1)
        let cut = CopyCertainty(reference: reference, incoming: (1...8).map { (title: MirrorSite.title($0, style: .arabic), isVolume: false) })
        #expect(!cut.isCertain)
        let noted = CopyCertainty(reference: reference, incoming: (1...10).map { (title: MirrorSite.title($0, style: .annotated), isVolume: false) })
        #expect(!noted.isCertain && noted.uncertain == 10)
        #expect(noted.reason == "not certainly the same book: 0 of 10 chapter(s) by title, 10 by position or number only, 0 unmatched, 0 new (at least 90% must match by title)")
    }
}
