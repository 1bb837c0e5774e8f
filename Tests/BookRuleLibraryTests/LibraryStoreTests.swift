import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleJSON
@testable import BookRuleLibrary
import TestSupport

extension ScratchDirectory {
    /// The library file in the directory.
    fileprivate var library: String { path + "/library.sqlite" }
}

/// A clock the tests move by hand.
private final class LibraryTestClock: Sendable {
    private let current = Locked(Date(timeIntervalSince1970: 1_700_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

private let testSource = BookSourceRecord(sourceURL: "https://novel.test", sourceName: "Novel Test",
                                      json: #"{"bookSourceUrl":"https://novel.test"}"#)

private func testBookInfo(url: String = "https://novel.test/book/1/", name: String = "星河 Voyage",
                      author: String = "Author", variables: [String: String] = [:]) -> BookInfo {
    BookInfo(url: url, name: name, author: author, intro: "An intro.\nTwo lines.", kind: "SF,Serial",
             lastChapter: "", updateTime: "", coverURL: "https://novel.test/cover/1.jpg",
             tocURL: url + "toc.html", wordCount: "", variables: variables, warnings: [])
}

private func testTOC(_ numbers: [Int], base: String = "https://novel.test/book/1/") -> [Chapter] {
    numbers.enumerated().map {
        Chapter(index: $0.offset, title: "Chapter \($0.element)", url: base + "\($0.element).html")
    }
}

private func chapterURL(_ number: Int) -> String { "https://novel.test/book/1/\(number).html" }

/// A scalar read with raw SQL (tests look under the API).
private func libraryScalar(_ store: LibraryStore, _ sql: String) throws -> Int {
    try store.database.query(sql, purpose: "test") { (row) throws(LibraryError) in row.int(0) }.first ?? -1
}

private func libraryIntegrity(_ store: LibraryStore) throws -> String {
    try store.database.query("PRAGMA integrity_check", purpose: "test") { (row) throws(LibraryError) in row.text(0) }
        .joined(separator: "; ")
}

/// The error `body` throws, failing the test when it throws none or another type.
private func libraryError(_ body: () throws(LibraryError) -> Void) -> LibraryError? {
    do {
        try body()
        Issue.record("expected a LibraryError")
        return nil
    } catch {
        return error
    }
}

@Suite("Library store")
struct LibraryStoreTests {
    @Test("a new library is created with its directories, the current schema, WAL and foreign keys")
    func createsFromEmpty() throws {
        let directory = try ScratchDirectory("library")
        let path = directory.path + "/nested/deeper/library.sqlite"
        let store = try LibraryStore(path: path)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try libraryScalar(store, "PRAGMA user_version") == LibraryStore.schemaVersion)
        #expect(LibraryStore.schemaVersion >= 1)
        #expect(try libraryScalar(store, "PRAGMA application_id") == Int(LibraryStore.applicationID))
        #expect(try libraryScalar(store, "PRAGMA foreign_keys") == 1)
        #expect(try libraryScalar(store, "PRAGMA synchronous") == 1)  // NORMAL
        let mode = try store.database.query("PRAGMA journal_mode", purpose: "test") {
            (row) throws(LibraryError) in row.text(0)
        }
        #expect(mode == ["wal"])
        let tables = try store.database.query(
            "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name", purpose: "test"
        ) { (row) throws(LibraryError) in row.text(0) }
        #expect(tables == ["book_sources", "books", "chapter_texts", "chapters", "reading_progress", "removed_books", "rss_sources", "sources"])
        #expect(try store.books().isEmpty)
    }

    @Test("the default path follows XDG_DATA_HOME, ignores a relative one, and falls back to ~/.local/share")
    func defaultPath() {
        #expect(LibraryStore.defaultPath(environment: ["XDG_DATA_HOME": "/data/", "HOME": "/home/u"])
                == "/data/bookrule/library.sqlite")
        #expect(LibraryStore.defaultPath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.local/share/bookrule/library.sqlite")
        #expect(LibraryStore.defaultPath(environment: ["XDG_DATA_HOME": "", "HOME": "/home/u"])
                == "/home/u/.local/share/bookrule/library.sqlite")
        #expect(LibraryStore.defaultPath(environment: ["HOME": "/home/u/"])
                == "/home/u/.local/share/bookrule/library.sqlite")
    }

    @Test("reading without waiting: with every read-only connection in use a read is refused (busy), not queued on the main lock")
    func readingWithoutWaiting() async throws {
        let scratch = try ScratchDirectory("library")
        let store = try LibraryStore(path: scratch.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        let inUse = Locked(0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for _ in 0..<SQLiteDatabase.readerLimit {
            done.enter()
            #expect(BlockingWorkThread.start {
                _ = try? store.database.read { (_) throws(LibraryError) in
                    inUse.withLock { $0 += 1 }
                    release.wait()
                }
                done.leave()
            })
        }
        try await eventually("every read-only connection in use") { inUse.withLock { $0 } == SQLiteDatabase.readerLimit }
        let refused = NoWaitRead()
        let found = LibraryStore.readingWithoutWaiting(refused) { try? store.books(url: book.url, counting: false) }
        #expect(found == nil)
        #expect(refused.refused)
        // Without the flag the same read waits for (and takes) the main connection.
        #expect(try store.books(url: book.url, counting: false).map(\.id) == [book.id])
        for _ in 0..<SQLiteDatabase.readerLimit { release.signal() }
        done.wait()
        let free = NoWaitRead()
        #expect(LibraryStore.readingWithoutWaiting(free) { try? store.books(url: book.url, counting: false) }?.map(\.id) == [book.id])
        #expect(!free.refused)
    }

    @Test("reopening keeps books, chapters, states and texts")
    func reopenKeepsData() throws {
        let directory = try ScratchDirectory("library")
        let saved: StoredBook
        let listed: [StoredChapter]
        do {
            let store = try LibraryStore(path: directory.library)
            saved = try store.upsertBook(source: testSource, info: testBookInfo(variables: ["token": "abc"]))
            try store.mergeTOC(bookID: saved.id, chapters: testTOC([1, 2, 3]))
            try store.saveChapter(bookID: saved.id, url: chapterURL(1), text: "第一章\n正文")
            try store.markFailed(bookID: saved.id, url: chapterURL(2), error: "HTTP 503")
            listed = try store.chapters(bookID: saved.id)
        }
        let reopened = try LibraryStore(path: directory.library)
        let book = try #require(try reopened.book(id: saved.id))
        #expect(book.name == "星河 Voyage" && book.variables == ["token": "abc"])
        #expect(book.chapterCount == 3 && book.doneCount == 1 && book.failedCount == 1)
        #expect(try reopened.chapters(bookID: saved.id) == listed)
        #expect(try reopened.text(bookID: saved.id, url: chapterURL(1)) == "第一章\n正文")
        #expect(try reopened.chapters(bookID: saved.id).map(\.state) == [.done, .failed, .pending])
    }

    @Test("the last save is the newest chapter's save, not when the run that saved it read the book page")
    func lastSaved() throws {
        let directory = try ScratchDirectory("library")
        let clock = LibraryTestClock()
        let store = try LibraryStore(path: directory.library, busyTimeout: .seconds(5), now: { clock.now })
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: testTOC([1, 2]))
        #expect(try store.lastSaved(book) == book.updatedAt)
        clock.advance(90)
        try store.saveChapter(bookID: book.id, url: chapterURL(1), text: "one")
        clock.advance(30)
        try store.saveChapter(bookID: book.id, url: chapterURL(2), text: "two")
        let stored = try #require(try store.book(id: book.id))
        #expect(stored.updatedAt == book.updatedAt, "the book record says when the run began")
        #expect(try store.lastSaved(stored) == book.updatedAt.addingTimeInterval(120))
    }

    @Test("upserting the same book twice changes nothing; new metadata updates it under the same id")
    func upsertIsIdempotent() throws {
        let directory = try ScratchDirectory("library")
        let clock = LibraryTestClock()
        let store = try LibraryStore(path: directory.library, busyTimeout: .seconds(5), now: { clock.now })
        let first = try store.upsertBook(source: testSource, info: testBookInfo())
        clock.advance(60)
        let second = try store.upsertBook(source: testSource, info: testBookInfo())
        #expect(first == second)
        #expect(try store.books() == [first])
        #expect(first.sourceName == "Novel Test" && first.tocURL == "https://novel.test/book/1/toc.html")
        #expect(first.createdAt == clock.now.addingTimeInterval(-60))

        clock.advance(60)
        let renamedSource = BookSourceRecord(sourceURL: testSource.sourceURL, sourceName: "Novel Test v2", json: "{}")
        let changed = try store.upsertBook(source: renamedSource, info: testBookInfo(name: "星河 Voyage (revised)"))
        #expect(changed.id == first.id)
        #expect(changed.name == "星河 Voyage (revised)" && changed.sourceName == "Novel Test v2")
        #expect(changed.createdAt == first.createdAt)
        #expect(changed.updatedAt == clock.now && changed.updatedAt > first.updatedAt)
        #expect(try store.books().count == 1)

        let other = BookSourceRecord(sourceURL: "https://mirror.test", sourceName: "Mirror", json: "{}")
        let elsewhere = try store.upsertBook(source: other, info: testBookInfo())
        #expect(elsewhere.id != first.id)
        #expect(try store.books().map(\.id) == [first.id, elsewhere.id])
    }

    @Test("mergeTOC adds new chapters, keeps saved ones, keeps vanished ones at the end, follows the new order")
    func mergeTOC() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        var first = [Chapter(index: 0, title: "Volume One", url: "", isVolume: true)]
        first += testTOC([1, 2, 3]).map { var chapter = $0; chapter.index += 1; return chapter }
        let initial = try store.mergeTOC(bookID: book.id, chapters: first)
        #expect(initial == TOCMerge(added: 4, kept: 0, missingFromTOC: 0, duplicatesIgnored: 0))
        try store.saveChapter(bookID: book.id, url: chapterURL(2), text: "two")
        try store.markFailed(bookID: book.id, url: chapterURL(3), error: "timeout")

        // The site reorders, drops chapter 1, adds 4, links 2 with a fragment and lists 4 twice.
        let second = [
            Chapter(index: 0, title: "Volume One", url: "", isVolume: true),
            Chapter(index: 1, title: "Chapter 3 (fixed)", url: chapterURL(3)),
            Chapter(index: 2, title: "Chapter 2", url: chapterURL(2) + "#start"),
            Chapter(index: 3, title: "Chapter 4", url: chapterURL(4)),
            Chapter(index: 4, title: "Chapter 4 again", url: chapterURL(4) + "#x"),
        ]
        let merge = try store.mergeTOC(bookID: book.id, chapters: second)
        #expect(merge == TOCMerge(added: 1, kept: 3, missingFromTOC: 1, duplicatesIgnored: 1))

        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.position) == [0, 1, 2, 3, 4])
        #expect(chapters.map(\.title) == ["Volume One", "Chapter 3 (fixed)", "Chapter 2", "Chapter 4", "Chapter 1"])
        #expect(chapters.map(\.key)
                == ["heading:1:Volume One", chapterURL(3), chapterURL(2), chapterURL(4), chapterURL(1)])
        #expect(chapters.map(\.inTOC) == [true, true, true, true, false])
        #expect(chapters.map(\.state) == [.pending, .failed, .done, .pending, .pending])
        #expect(chapters[1].lastError == "timeout" && chapters[1].attempts == 1)
        #expect(chapters[2].url == chapterURL(2) + "#start" && chapters[2].textLength == 3)
        #expect(chapters[0].isVolume && !chapters[1].isVolume)
        #expect(try store.text(bookID: book.id, url: chapterURL(2)) == "two")
        #expect(try store.text(bookID: book.id, url: chapterURL(2) + "#elsewhere") == "two")

        // Chapter 1 comes back: it is kept (not added again) and takes its new place.
        let third = try store.mergeTOC(bookID: book.id, chapters: testTOC([1, 2, 3, 4]))
        #expect(third == TOCMerge(added: 0, kept: 4, missingFromTOC: 1, duplicatesIgnored: 0))
        let again = try store.chapters(bookID: book.id)
        #expect(again.map(\.key) == [chapterURL(1), chapterURL(2), chapterURL(3), chapterURL(4), "heading:1:Volume One"])
        #expect(again.map(\.inTOC) == [true, true, true, true, false])
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapters") == 5)
        #expect(try store.book(id: book.id)?.chapterCount == 4)
    }

    @Test("headings without a URL are found again when the TOC gains entries above them; same-titled ones stay apart")
    func headingsKeepTheirRows() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        func toc(_ items: [(String, String)]) -> [Chapter] {
            items.enumerated().map { Chapter(index: $0.offset, title: $0.element.0, url: $0.element.1, isVolume: $0.element.1.isEmpty) }
        }
        try store.mergeTOC(bookID: book.id, chapters: toc([
            ("正文", ""), ("Chapter 1", chapterURL(1)), ("番外", ""), ("Extra 1", chapterURL(9)), ("番外", ""),
        ]))
        let before = try store.chapters(bookID: book.id)
        #expect(before.map(\.key) == ["heading:1:正文", chapterURL(1), "heading:1:番外", chapterURL(9), "heading:2:番外"])
        // A notice is added at the top: every heading keeps its row (same id), nothing is hidden or added twice.
        let merge = try store.mergeTOC(bookID: book.id, chapters: toc([
            ("公告", chapterURL(0)), ("正文", ""), ("Chapter 1", chapterURL(1)), ("番外", ""), ("Extra 1", chapterURL(9)),
            ("番外", ""),
        ]))
        #expect(merge == TOCMerge(added: 1, kept: 5, missingFromTOC: 0, duplicatesIgnored: 0))
        let after = try store.chapters(bookID: book.id)
        #expect(after.filter(\.isVolume).map(\.key) == before.filter(\.isVolume).map(\.key))
        #expect(after.allSatisfy { $0.inTOC })
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapters") == 6)
    }

    @Test("positional heading keys of older libraries are rewritten, so their rows keep matching")
    func positionalHeadingKeysAreRekeyed() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: [
            Chapter(index: 0, title: "Volume: One", url: "", isVolume: true), Chapter(index: 1, title: "C1", url: chapterURL(1)),
        ])
        // As an older bookrule stored it.
        try store.database.execute("UPDATE chapters SET key = 'volume:0:Volume: One' WHERE url = ''", purpose: "test")
        let headingRow = try libraryScalar(store, "SELECT id FROM chapters WHERE url = ''")
        let merge = try store.mergeTOC(bookID: book.id, chapters: [
            Chapter(index: 0, title: "C0", url: chapterURL(0)),
            Chapter(index: 1, title: "Volume: One", url: "", isVolume: true), Chapter(index: 2, title: "C1", url: chapterURL(1)),
        ])
        #expect(merge == TOCMerge(added: 1, kept: 2, missingFromTOC: 0, duplicatesIgnored: 0))
        let after = try store.chapters(bookID: book.id)
        #expect(after.map(\.key) == [chapterURL(0), "heading:1:Volume: One", chapterURL(1)])
        #expect(try libraryScalar(store, "SELECT id FROM chapters WHERE key = 'heading:1:Volume: One'") == headingRow)
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapters") == 3)
    }

    @Test("saveChapter and markFailed move states, count attempts and keep the last error")
    func stateTransitions() throws {
        let directory = try ScratchDirectory("library")
        let clock = LibraryTestClock()
        let store = try LibraryStore(path: directory.library, busyTimeout: .seconds(5), now: { clock.now })
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: testTOC([1]))
        func chapter() throws -> StoredChapter { try #require(try store.chapters(bookID: book.id).first) }

        #expect(try chapter().state == .pending && chapter().attempts == 0 && chapter().fetchedAt == nil)
        try store.markFailed(bookID: book.id, url: chapterURL(1), error: "HTTP 503")
        try store.markFailed(bookID: book.id, url: chapterURL(1), error: "HTTP 502")
        var current = try chapter()
        #expect(current.state == .failed && current.attempts == 2 && current.lastError == "HTTP 502")
        #expect(try store.text(bookID: book.id, url: chapterURL(1)) == nil)

        let emptyError = libraryError { () throws(LibraryError) in
            try store.saveChapter(bookID: book.id, url: chapterURL(1), text: " \n\t ")
        }
        #expect(emptyError == .emptyText(bookID: book.id, url: chapterURL(1)))
        #expect(try chapter() == current)

        clock.advance(5)
        try store.saveChapter(bookID: book.id, url: chapterURL(1) + "#top", title: "Chapter 1: Dawn",
                              text: "晨光 dawn")
        current = try chapter()
        #expect(current.state == .done && current.attempts == 3 && current.lastError == nil)
        #expect(current.fetchedAt == clock.now && current.textLength == 7 && current.title == "Chapter 1: Dawn")

        // A failed refresh of a saved chapter keeps it saved.
        try store.markFailed(bookID: book.id, url: chapterURL(1), error: "HTTP 404")
        current = try chapter()
        #expect(current.state == .done && current.attempts == 4 && current.lastError == "HTTP 404")
        #expect(try store.text(bookID: book.id, url: chapterURL(1)) == "晨光 dawn")

        let unknown = libraryError { () throws(LibraryError) in
            try store.saveChapter(bookID: book.id, url: chapterURL(9), text: "x")
        }
        #expect(unknown == .unknownChapter(bookID: book.id, url: chapterURL(9)))
        let noBook = libraryError { () throws(LibraryError) in
            try store.markFailed(bookID: 999, url: chapterURL(1), error: "x")
        }
        #expect(noBook == .unknownBook(id: 999))
        #expect(noBook?.description == "no book with id 999 in the library")
    }

    @Test("a rerun fetches pending and failed chapters and new ones, never saved ones or volume headings")
    func rerunSelection() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        var entries = [Chapter(index: 0, title: "Volume One", url: "", isVolume: true)]
        entries += testTOC([1, 2, 3, 4]).map { var chapter = $0; chapter.index += 1; return chapter }
        try store.mergeTOC(bookID: book.id, chapters: entries)
        try store.saveChapter(bookID: book.id, url: chapterURL(1), text: "one")
        try store.saveChapter(bookID: book.id, url: chapterURL(3), text: "three")
        try store.markFailed(bookID: book.id, url: chapterURL(2), error: "HTTP 500")

        #expect(try store.chaptersToFetch(bookID: book.id).map(\.url) == [chapterURL(2), chapterURL(4)])
        #expect(try store.chapters(bookID: book.id, states: [.pending, .failed]).map(\.key)
                == ["heading:1:Volume One", chapterURL(2), chapterURL(4)])
        #expect(try store.chapters(bookID: book.id, states: [.done]).map(\.url) == [chapterURL(1), chapterURL(3)])

        // The serial grows: chapter 5 appears, chapter 4 is pulled from the site.
        entries = testTOC([1, 2, 3, 5])
        try store.mergeTOC(bookID: book.id, chapters: entries)
        #expect(try store.chaptersToFetch(bookID: book.id).map(\.url) == [chapterURL(2), chapterURL(5)])
        #expect(try store.text(bookID: book.id, url: chapterURL(3)) == "three")
        let saved = try #require(try store.book(id: book.id))
        #expect(saved.chapterCount == 5 && saved.doneCount == 2 && saved.failedCount == 1)
    }

    @Test("books(url:) finds the books of that URL on every source, by id, with their counts, and none for another")
    func booksByURL() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let first = try store.upsertBook(source: testSource, info: testBookInfo())
        let other = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/2/"))
        let mirror = BookSourceRecord(sourceURL: "https://mirror.test", sourceName: "Mirror", json: "{}")
        let elsewhere = try store.upsertBook(source: mirror, info: testBookInfo())
        try store.mergeTOC(bookID: first.id, chapters: testTOC([1, 2]))
        try store.saveChapter(bookID: first.id, url: chapterURL(1), text: "one")

        let found = try store.books(url: first.url)
        #expect(found.map(\.id) == [first.id, elsewhere.id])
        #expect(found == (try store.books()).filter { $0.url == first.url })
        #expect(found.first?.chapterCount == 2 && found.first?.doneCount == 1)
        #expect(try store.books(url: other.url).map(\.id) == [other.id])
        #expect(try store.books(url: "https://novel.test/book/3/").isEmpty)
    }

    @Test("tocChapter finds the chapter at a TOC position, volumes counted, and the chapters after it, never vanished ones")
    func tocChapterByPosition() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        // Chapter 9 vanishes from the TOC: it stays at a position past the listed ones, not in the TOC.
        try store.mergeTOC(bookID: book.id, chapters: testTOC([9]))
        var entries = [Chapter(index: 0, title: "Volume One", url: "", isVolume: true)]
        entries += testTOC([1, 2]).map { var chapter = $0; chapter.index += 1; return chapter }
        entries.append(Chapter(index: 3, title: "Volume Two", url: "", isVolume: true))
        entries += testTOC([3]).map { var chapter = $0; chapter.index = 4; return chapter }
        try store.mergeTOC(bookID: book.id, chapters: entries)
        try store.saveChapter(bookID: book.id, url: chapterURL(2), text: "two")
        let all = try store.chapters(bookID: book.id)
        #expect(all.map(\.position) == [0, 1, 2, 3, 4, 5] && all.last?.inTOC == false)

        for position in 0..<5 {
            let found = try #require(try store.tocChapter(bookID: book.id, position: position, following: 10))
            #expect(found.chapter == all[position])
            #expect(found.following == all[(position + 1)..<5].filter { !$0.isVolume })
        }
        let volume = try #require(try store.tocChapter(bookID: book.id, position: 0, following: 1))
        #expect(volume.chapter.isVolume && volume.following.map(\.url) == [chapterURL(1)])
        #expect(try store.tocChapter(bookID: book.id, position: 2)?.following == [])
        #expect(try store.tocChapter(bookID: book.id, position: 2)?.chapter.state == .done)
        #expect(try store.tocChapter(bookID: book.id, position: 5, following: 1) == nil)
        #expect(try store.tocChapter(bookID: book.id, position: -1) == nil)
        #expect(libraryError { () throws(LibraryError) in _ = try store.tocChapter(bookID: book.id + 1, position: 0) }
                == .unknownBook(id: book.id + 1))
    }

    @Test("texts come back exactly: CJK, emoji, NUL characters and megabytes")
    func textSurvives() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: testTOC([1, 2]))
        let odd = "第一章 “引号”\u{3000}全角空格 👩‍👩‍👧 e\u{301}\nNUL:\u{0}:end\r\n"
        let large = String(repeating: "星河长夜，灯火可亲。\n", count: 200_000)
        try store.saveChapter(bookID: book.id, url: chapterURL(1), text: odd)
        try store.saveChapter(bookID: book.id, url: chapterURL(2), text: large)
        #expect(try store.text(bookID: book.id, url: chapterURL(1)) == odd)
        #expect(try store.text(bookID: book.id, url: chapterURL(2)) == large)
        #expect(try store.chapters(bookID: book.id).map(\.textLength) == [odd.count, large.count])
        try store.saveChapter(bookID: book.id, url: chapterURL(1), text: "replaced")
        #expect(try store.text(bookID: book.id, url: chapterURL(1)) == "replaced")
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapter_texts") == 2)
    }

    @Test("findBooks matches an id, an exact URL, or part of a name ignoring case")
    func findBooks() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let star = try store.upsertBook(source: testSource,
                                        info: testBookInfo(url: "https://novel.test/book/1/", name: "Star Sea"))
        let river = try store.upsertBook(source: testSource,
                                         info: testBookInfo(url: "https://novel.test/book/2/", name: "星河 1"))
        #expect(try store.findBooks(matching: "star").map(\.id) == [star.id])
        #expect(try store.findBooks(matching: "  SEA ").map(\.id) == [star.id])
        #expect(try store.findBooks(matching: "星河").map(\.id) == [river.id])
        #expect(try store.findBooks(matching: "https://novel.test/book/2/").map(\.id) == [river.id])
        #expect(try store.findBooks(matching: "https://novel.test/book/2/toc.html").map(\.id) == [river.id])
        // "1" is star's id and part of river's name: the id comes first.
        #expect(star.id == 1)
        #expect(try store.findBooks(matching: "1").map(\.id) == [star.id, river.id])
        #expect(try store.findBooks(matching: "").isEmpty)
        #expect(try store.findBooks(matching: "nothing like it").isEmpty)
    }

    @Test("removeBook deletes its chapters and texts and nothing else")
    func removeBookCascades() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let gone = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/1/"))
        let kept = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/2/"))
        try store.mergeTOC(bookID: gone.id, chapters: testTOC([1, 2]))
        try store.mergeTOC(bookID: kept.id, chapters: testTOC([1, 2], base: "https://novel.test/book/2/"))
        try store.saveChapter(bookID: gone.id, url: chapterURL(1), text: "gone")
        try store.saveChapter(bookID: kept.id, url: "https://novel.test/book/2/1.html", text: "kept")

        try store.removeBook(id: gone.id)
        #expect(try store.books().map(\.id) == [kept.id])
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapters WHERE book_id = \(gone.id)") == 0)
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapters") == 2)
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapter_texts") == 1)
        #expect(try store.text(bookID: kept.id, url: "https://novel.test/book/2/1.html") == "kept")
        #expect(try libraryScalar(store, "SELECT count(*) FROM sources") == 1)
        let removedAgain = libraryError { () throws(LibraryError) in try store.removeBook(id: gone.id) }
        #expect(removedAgain == .unknownBook(id: gone.id))
        let listedAgain = libraryError { () throws(LibraryError) in _ = try store.chapters(bookID: gone.id) }
        #expect(listedAgain == .unknownBook(id: gone.id))
    }

    @Test("a removed book's id is never given to another book (files kept by id must not be inherited)")
    func removedIdsAreNotReused() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let first = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/1/"))
        let second = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/2/"))
        try store.removeBook(id: second.id)
        let third = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/3/"))
        #expect(third.id == second.id + 1)
        // Saving a known book again keeps its id.
        #expect(try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/1/", name: "new")).id
                == first.id)
        // Files kept by id beside the library go with the book.
        try FileManager.default.createDirectory(atPath: store.mediaDirectory(bookID: third.id), withIntermediateDirectories: true)
        try LocalFile.writeAtomically(Array("jpeg".utf8), to: store.mediaDirectory(bookID: third.id) + "/0001-001.jpg")
        try FileManager.default.createDirectory(atPath: directory.path + "/covers", withIntermediateDirectories: true)
        try LocalFile.writeAtomically(Array("png".utf8), to: store.coverPath(bookID: third.id))
        #expect(store.coverPath(bookID: third.id) == directory.path + "/covers/\(third.id)")
        try store.removeBook(id: third.id)
        #expect(!FileManager.default.fileExists(atPath: store.coverPath(bookID: third.id)))
        #expect(!FileManager.default.fileExists(atPath: store.mediaDirectory(bookID: third.id)))
        try store.removeBook(id: first.id)
        let fourth = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/4/"))
        #expect(fourth.id == third.id + 1)
    }

    @Test("a version 1 library is upgraded in place: its books keep their ids; ids of files left behind and of books removed later are not reused")
    func upgradesFromVersionOne() throws {
        let directory = try ScratchDirectory("library")
        do {
            let raw = try SQLiteDatabase(path: directory.library)
            try raw.execute(LibraryStore.migrations[0], purpose: "test")
            try raw.execute("PRAGMA application_id = \(LibraryStore.applicationID)", purpose: "test")
            try raw.execute("PRAGMA user_version = 1", purpose: "test")
            try raw.execute("""
                INSERT INTO sources VALUES ('https://novel.test', 'Novel Test', '{}', 0);
                INSERT INTO books (id, source_url, url, name, author, intro, kind, cover_url, toc_url, variables,
                                   created_at, updated_at)
                VALUES (7, 'https://novel.test', 'https://novel.test/book/7/', 'Old', '', '', '', '', '', '{}', 0, 0);
                """, purpose: "test")
        }
        // Book 9 was removed by the older bookrule, which left its media folder behind.
        try FileManager.default.createDirectory(atPath: directory.path + "/media/9", withIntermediateDirectories: true)
        let store = try LibraryStore(path: directory.library)
        #expect(try libraryScalar(store, "PRAGMA user_version") == LibraryStore.schemaVersion)
        #expect(try store.books().map(\.id) == [7])
        try store.removeBook(id: 7)
        let next = try store.upsertBook(source: testSource, info: testBookInfo(url: "https://novel.test/book/8/"))
        #expect(next.id == 10)
        #expect(try libraryIntegrity(store) == "ok")
    }

    @Test("a library from a newer bookrule is refused with a clear message and left untouched")
    func newerSchemaRefused() throws {
        let directory = try ScratchDirectory("library")
        let newer = LibraryStore.schemaVersion + 1
        do {
            let store = try LibraryStore(path: directory.library)
            try store.database.execute("PRAGMA user_version = \(newer)", purpose: "test")
        }
        let error = libraryError { () throws(LibraryError) in _ = try LibraryStore(path: directory.library) }
        #expect(error == .newerSchema(path: directory.library, found: newer, supported: LibraryStore.schemaVersion))
        #expect(error?.description == "the library at \(directory.library) was written by a newer bookrule "
                + "(schema version \(newer); this build knows versions up to \(LibraryStore.schemaVersion)): "
                + "upgrade bookrule or use another library")
        let raw = try SQLiteDatabase(path: directory.library)
        let version = try raw.query("PRAGMA user_version", purpose: "test") { (row) throws(LibraryError) in row.int(0) }
        #expect(version == [newer])
    }

    @Test("a file that is not a library is refused, not given bookrule's tables")
    func notALibrary() throws {
        let directory = try ScratchDirectory("library")
        let text = directory.path + "/notes.txt"
        try String(repeating: "not a database\n", count: 100).write(toFile: text, atomically: true, encoding: .utf8)
        let textError = libraryError { () throws(LibraryError) in _ = try LibraryStore(path: text) }
        guard case .notALibrary(let path, _) = textError else {
            Issue.record("expected notALibrary, got \(String(describing: textError))")
            return
        }
        #expect(path == text)

        let other = directory.path + "/other.sqlite"
        do {
            let database = try SQLiteDatabase(path: other)
            try database.execute("CREATE TABLE things (x)", purpose: "test")
        }
        let otherError = libraryError { () throws(LibraryError) in _ = try LibraryStore(path: other) }
        #expect(otherError == .notALibrary(path: other, reason: "it is an SQLite database of another program"))
        let database = try SQLiteDatabase(path: other)
        let objects = try database.query("SELECT count(*) FROM sqlite_schema", purpose: "test") {
            (row) throws(LibraryError) in row.int(0)
        }
        #expect(objects == [1])
    }

    @Test("a writer blocked past the busy timeout gets the clear busy error, then succeeds once the lock is gone", .tags(.realTime))
    func busyIsClear() throws {
        let directory = try ScratchDirectory("library")
        let holder = try LibraryStore(path: directory.library)
        let book = try holder.upsertBook(source: testSource, info: testBookInfo())
        try holder.mergeTOC(bookID: book.id, chapters: testTOC([1, 2]))
        let waiter = try LibraryStore(path: directory.library, busyTimeout: .milliseconds(200))

        try holder.database.execute("BEGIN IMMEDIATE", purpose: "test")
        try holder.database.execute("UPDATE books SET name = 'held' WHERE id = \(book.id)", purpose: "test")
        let started = ContinuousClock.now
        let error = libraryError { () throws(LibraryError) in
            try waiter.saveChapter(bookID: book.id, url: chapterURL(1), text: "one")
        }
        let waited = ContinuousClock.now - started
        #expect(error == .busy(path: directory.library, purpose: "saving chapter \(chapterURL(1))"))
        #expect(error?.description == "the library at \(directory.library) is busy: another bookrule process is "
                + "writing to it; wait for it to finish or use another library (while saving chapter \(chapterURL(1)))")
        #expect(waited >= .milliseconds(150) && waited < TestTime.bound(.seconds(3)))
        // Readers do not wait for the writer, and see the last committed state.
        #expect(try waiter.book(id: book.id)?.name == "星河 Voyage")

        try holder.database.execute("COMMIT", purpose: "test")
        try waiter.saveChapter(bookID: book.id, url: chapterURL(1), text: "one")
        #expect(try holder.text(bookID: book.id, url: chapterURL(1)) == "one")
        #expect(try holder.book(id: book.id)?.name == "held")
        #expect(try libraryIntegrity(waiter) == "ok")
    }

    @Test("two connections writing at once both finish, and the library stays consistent")
    func concurrentWriters() throws {
        let directory = try ScratchDirectory("library")
        let first = try LibraryStore(path: directory.library)
        let book = try first.upsertBook(source: testSource, info: testBookInfo())
        try first.mergeTOC(bookID: book.id, chapters: testTOC(Array(0..<200)))
        let second = try LibraryStore(path: directory.library)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let store = worker == 0 ? first : second
            for number in stride(from: worker, to: 200, by: 2) {
                do {
                    let text = String(repeating: "\(number) ", count: 500)
                    try store.saveChapter(bookID: book.id, url: chapterURL(number), text: text)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try first.book(id: book.id)?.doneCount == 200)
        #expect(try second.text(bookID: book.id, url: chapterURL(137)) == String(repeating: "137 ", count: 500))
        #expect(try libraryIntegrity(first) == "ok")
    }

    @Test("the reads a server makes per chapter run while another thread holds the main connection, and see its last commit")
    func readsDoNotQueueOnTheMainConnection() throws {
        let directory = try ScratchDirectory("library")
        let store = try LibraryStore(path: directory.library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: testTOC([1, 2]))
        try store.saveChapter(bookID: book.id, url: chapterURL(1), text: "one")
        let read = DispatchSemaphore(value: 0)
        let answers = Locked<[String]>([])
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread {
            _ = try? store.database.withConnection { (_) throws(LibraryError) in
                holding.signal()
                _ = release.wait(timeout: .now() + 30)
            }
        }.start()
        holding.wait()
        Thread {
            let found = (try? store.books(url: book.url).map(\.name).joined()) ?? "failed"
            let chapter = (try? store.tocChapter(bookID: book.id, position: 0)?.chapter.title) ?? "failed"
            let text = (try? store.text(bookID: book.id, url: chapterURL(1))) ?? "failed"
            answers.withLock { $0 = [found, chapter, text] }
            read.signal()
        }.start()
        // Before: all three waited for the lock the first thread holds.
        let answered = read.wait(timeout: .now() + 10) == .success
        release.signal()
        if !answered { _ = read.wait(timeout: .now() + 30) }
        #expect(answered)
        #expect(answers.withLock { $0 } == [book.name, "Chapter 1", "one"])
        // The read-only connections keep their compiled statements: asked again, they read the newest commit.
        for round in 1...3 {
            try store.saveChapter(bookID: book.id, url: chapterURL(1), text: "one, saved \(round) times")
            try store.mergeTOC(bookID: book.id, chapters: testTOC(round == 3 ? [2, 1] : [1, 2]))
            #expect(try store.text(bookID: book.id, url: chapterURL(1)) == "one, saved \(round) times")
            #expect(try store.tocChapter(bookID: book.id, position: 0)?.chapter.title == (round == 3 ? "Chapter 2" : "Chapter 1"))
            #expect(try store.books(url: book.url).first?.doneCount == 1)
        }
    }
}

// MARK: - kill -9

/// The crash tests run a real writer in a child process (this test binary again, filtered to
/// `crashWriterChild`) and SIGKILL it: no atexit handler, no close, no checkpoint, exactly what kill -9 does to
/// a download. What they prove: committed chapters survive, the chapter in flight is absent (not half-saved),
/// and the library opens and passes `integrity_check`. What they cannot prove: survival of a power cut or OS
/// crash, which depends on the disk honouring fsync (with synchronous=NORMAL the last commits may be lost
/// then, never the database's consistency).
private let crashChildVariable = "BOOKRULE_LIBRARY_CRASH_CHILD"

/// The text of chapter `number` in the crash tests: large enough that every save writes many pages.
private func crashText(_ number: Int, size: Int = 64 * 1024) -> String {
    let line = "第\(number)章 chapter \(number): 星河长夜，灯火可亲。\n"
    return String(repeating: line, count: size / line.utf8.count + 1)
}

@Suite("Library store under kill -9", .serialized, .enabled(if: libraryCrashTestsRun))
struct LibraryCrashTests {
    @Test("kill -9 inside a chapter's transaction: saved chapters intact, the one in flight absent")
    func killMidTransaction() async throws {
        let directory = try ScratchDirectory("library")
        let marker = directory.path + "/in-flight"
        let child = try startChild(mode: "hang", library: directory.library, marker: marker, directory: directory)
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        try await waitFor("the child to be inside its transaction", child: child, directory: directory) {
            FileManager.default.fileExists(atPath: marker)
        }
        // The uncommitted 4 MB chapter spilled past SQLite's 2 MB page cache into the WAL: recovery has to skip
        // uncommitted frames, not merely find an empty WAL.
        let wal = try? FileManager.default.attributesOfItem(atPath: directory.library + "-wal")
        let walSize = wal?[.size] as? Int ?? 0
        #expect(walSize > 2_000_000)
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL)

        let store = try LibraryStore(path: directory.library)
        #expect(try libraryIntegrity(store) == "ok")
        let book = try #require(try store.books().first)
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.prefix(4).map(\.state) == [.done, .done, .done, .pending])
        for number in 0..<3 {
            #expect(try store.text(bookID: book.id, url: chapterURL(number)) == crashText(number))
        }
        #expect(try store.text(bookID: book.id, url: chapterURL(3)) == nil)
        #expect(chapters[3].attempts == 0 && chapters[3].textLength == 0)
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapter_texts") == 3)
        // And the library carries on.
        try store.saveChapter(bookID: book.id, url: chapterURL(3), text: crashText(3))
        #expect(try store.chaptersToFetch(bookID: book.id).first?.url == chapterURL(4))
    }

    @Test("kill -9 at an arbitrary moment of a download loop: every chapter fully saved or absent")
    func killDuringLoop() async throws {
        let directory = try ScratchDirectory("library")
        let child = try startChild(mode: "loop", library: directory.library, marker: "", directory: directory)
        defer { if child.isRunning { kill(child.processIdentifier, SIGKILL) } }
        let observer = try await openWhenReady(directory.library, child: child, directory: directory)
        try await waitFor("the child to save 20 chapters", child: child, directory: directory) {
            ((try? observer.books().first?.doneCount) ?? 0) >= 20
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...40)))
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        #expect(child.terminationReason == .uncaughtSignal)

        let store = try LibraryStore(path: directory.library)
        #expect(try libraryIntegrity(store) == "ok")
        let book = try #require(try store.books().first)
        let chapters = try store.chapters(bookID: book.id)
        let done = chapters.filter { $0.state == .done }
        #expect(done.count >= 20)
        // Saved in TOC order: the done chapters are exactly a prefix, each with its whole text.
        #expect(done.map(\.position) == Array(0..<done.count))
        for chapter in done {
            let expected = crashText(chapter.position)
            #expect(try store.text(bookID: book.id, url: chapter.url) == expected)
            #expect(chapter.textLength == expected.count)
        }
        #expect(try libraryScalar(store, "SELECT count(*) FROM chapter_texts") == done.count)
        #expect(chapters.dropFirst(done.count).allSatisfy { $0.state == .pending && $0.attempts == 0 })
    }

    /// What the child runs; skipped unless the parent set the variable.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[crashChildVariable] != nil))
    func crashWriterChild() throws {
        let setting = ProcessInfo.processInfo.environment[crashChildVariable] ?? ""
        let parts = setting.split(separator: "|", omittingEmptySubsequences: false)
        let (mode, library, marker) = (String(parts[0]), String(parts[1]), String(parts[2]))
        let store = try LibraryStore(path: library)
        let book = try store.upsertBook(source: testSource, info: testBookInfo())
        try store.mergeTOC(bookID: book.id, chapters: testTOC(Array(0..<10_000)))
        if mode == "hang" {
            for number in 0..<3 {
                try store.saveChapter(bookID: book.id, url: chapterURL(number), text: crashText(number))
            }
            // What saveChapter does for chapter 3, stopped before COMMIT.
            try store.database.execute("BEGIN IMMEDIATE", purpose: "test")
            try store.database.withConnection { (connection) throws(LibraryError) in
                let id = try connection.query("SELECT id FROM chapters WHERE key = ?1", purpose: "test",
                                              bindings: [chapterURL(3)]) { (row) throws(LibraryError) in
                    row.int64(0)
                }[0]
                try connection.run("""
                    UPDATE chapters SET state = 'done', attempts = attempts + 1, text_length = 1 WHERE id = ?1
                    """, purpose: "test", bindings: [id])
                try connection.run("INSERT INTO chapter_texts (chapter_id, text) VALUES (?1, ?2)", purpose: "test",
                                   bindings: [id, crashText(3, size: 4 * 1024 * 1024)])
            }
            _ = FileManager.default.createFile(atPath: marker, contents: Data())
            while true { sleep(60) }
        }
        for number in 0..<10_000 {
            try store.saveChapter(bookID: book.id, url: chapterURL(number), text: crashText(number))
        }
    }

    private func startChild(mode: String, library: String, marker: String,
                            directory: ScratchDirectory) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        process.arguments = ["--testing-library", "swift-testing", "--filter", "LibraryCrashTests/crashWriterChild"]
        var environment = ProcessInfo.processInfo.environment
        environment[crashChildVariable] = [mode, library, marker].joined(separator: "|")
        process.environment = environment
        let log = directory.path + "/child.log"
        _ = FileManager.default.createFile(atPath: log, contents: Data())
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return process
    }

    private func waitFor(_ what: String, child: Process, directory: ScratchDirectory,
                         until condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition() {
            guard child.isRunning, ContinuousClock.now < deadline else {
                let log = (try? String(contentsOfFile: directory.path + "/child.log", encoding: .utf8)) ?? ""
                Issue.record("gave up waiting for \(what); child output:\n\(log.suffix(2000))")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Opens the child's library once the child has created it and its book.
    private func openWhenReady(_ library: String, child: Process,
                               directory: ScratchDirectory) async throws -> LibraryStore {
        try await waitFor("the child to create its book", child: child, directory: directory) {
            guard FileManager.default.fileExists(atPath: library),
                  let store = try? LibraryStore(path: library) else { return false }
            return ((try? store.books().first?.chapterCount) ?? 0) > 0
        }
        return try LibraryStore(path: library)
    }
}

#if os(Linux)
private let libraryCrashTestsRun = true
#else
private let libraryCrashTestsRun = false
#endif
