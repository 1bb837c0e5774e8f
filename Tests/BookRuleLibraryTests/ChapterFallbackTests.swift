import Foundation
import Testing
import BookRuleEngine
import BookRuleLibrary
import TestSupport

@Suite("fetch falls back per chapter to another known source", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct ChapterFallbackTests {
    @Test("chapters failing on the book's source come from a mirror where the alignment is certain, recorded as from it")
    func fallsBack() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 10, style: .arabic)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 5, style: .chinese)
        let folder = try scratchDirectory()
        let store = try LibraryStore(path: folder + "/library.sqlite")
        let fetcher = LibraryUpdateTests.fetcher()
        let primary = try #require(try BookSource.load(bytes: Array(first.sourceJSON(named: "mirror1").utf8), path: "mirror1").first)
        first.failChapters([3, 7])
        // No other source known yet: 3 and 7 fail.
        for try await _ in BookFetch(source: primary, transport: fetcher, store: store).run(bookURL: first.bookURL) {}
        let book = try #require(try store.books().first)
        #expect(book.doneCount == 8)

        // The mirror lists chapters 1–5 only (titles in Chinese numerals): chapter 3 aligns, chapter 7 does not.
        try store.recordSource(bookID: book.id, source: BookSourceRecord(sourceURL: second.baseURL, sourceName: "mirror2",
                                                                         json: second.sourceJSON(named: "mirror2")),
                               bookURL: second.bookURL)
        let before = first.chapterRequests.count
        var fromOther: [(Int, String)] = []
        var summary: DownloadSummary?
        for try await event in BookFetch(source: primary, transport: fetcher, store: store).run(bookURL: first.bookURL) {
            if case .chapterFromOtherSource(let position, _, let name, _) = event { fromOther.append((position + 1, name)) }
            if case .finished(let final) = event { summary = final }
        }
        #expect(Array(first.chapterRequests.dropFirst(before)) == [3, 7])
        #expect(second.chapterRequests == [3])
        #expect(fromOther.map(\.0) == [3])
        #expect(fromOther.map(\.1) == ["mirror2"])
        #expect(summary?.fetched == 1)
        #expect(summary?.failures.map { $0.position + 1 } == [7])
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters[2].state == .done)
        #expect(chapters[2].sourceURL == second.baseURL)
        #expect(chapters[2].title == MirrorSite.title(3, style: .arabic))
        #expect(chapters[1].sourceURL == first.baseURL)
        #expect(chapters[6].state == .failed)
        #expect(try store.text(bookID: book.id, url: first.baseURL + "/book/1/3.html") == MirrorSite.text(3))
    }

    @Test("a known source whose TOC cannot be read is skipped; the chapter stays failed")
    func deadMirror() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 4)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 4)
        let folder = try scratchDirectory()
        let store = try LibraryStore(path: folder + "/library.sqlite")
        let fetcher = LibraryUpdateTests.fetcher()
        let primary = try #require(try BookSource.load(bytes: Array(first.sourceJSON(named: "mirror1").utf8), path: "mirror1").first)
        for try await _ in BookFetch(source: primary, transport: fetcher, store: store).run(bookURL: first.bookURL, range: 1...2) {}
        let book = try #require(try store.books().first)
        try store.recordSource(bookID: book.id, source: BookSourceRecord(sourceURL: second.baseURL, sourceName: "mirror2",
                                                                         json: second.sourceJSON(named: "mirror2")),
                               bookURL: second.bookURL)
        second.server.stop()
        first.failChapters([4])
        var summary: DownloadSummary?
        for try await event in BookFetch(source: primary, transport: fetcher, store: store).run(bookURL: first.bookURL) {
            if case .finished(let final) = event { summary = final }
        }
        #expect(summary?.fetched == 1)
        #expect(summary?.failures.map { $0.position + 1 } == [4])
    }
}
