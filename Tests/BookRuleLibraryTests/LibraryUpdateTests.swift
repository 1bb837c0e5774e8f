import Foundation
import Testing
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import TestSupport

@Suite("LibraryUpdate: only new chapters of saved books", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct LibraryUpdateTests {
    static func fetcher() -> PoliteFetcher {
        var policy = PolitenessPolicy.default
        policy.delay = .zero
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        return PoliteFetcher(transport: CurlTransport(), policy: policy)
    }

    static func fetchAll(_ site: MirrorSite, named name: String, store: LibraryStore, fetcher: PoliteFetcher) async throws {
        let source = try #require(try BookSource.load(bytes: Array(site.sourceJSON(named: name).utf8), path: name).first)
        let fetch = BookFetch(source: source, transport: fetcher, store: store)
        for try await _ in fetch.run(bookURL: site.bookURL) {}
    }

    @Test("two books: each TOC is read, only new chapters are fetched, a failure is counted and retried next time")
    func updatesOnlyNewChapters() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 10)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 5, style: .chinese)
        let folder = try scratchDirectory()
        let store = try LibraryStore(path: folder + "/library.sqlite")
        let fetcher = Self.fetcher()
        try await Self.fetchAll(first, named: "mirror1", store: store, fetcher: fetcher)
        try await Self.fetchAll(second, named: "mirror2", store: store, fetcher: fetcher)
        let books = try store.books().sorted { $0.id < $1.id }
        #expect(books.count == 2)
        let firstBefore = first.chapterRequests.count
        let secondBefore = second.chapterRequests.count
        let tocReads = first.server.records.filter { $0.path == "/book/1/" }.count

        first.setChapters(13)
        first.failChapters([12])
        let update = LibraryUpdate(store: store, transport: fetcher)
        var outcomes: [LibraryUpdate.Outcome] = []
        for await event in update.run(books: books) {
            if case .bookFinished(let outcome) = event { outcomes.append(outcome) }
        }
        #expect(outcomes.map(\.book.id) == books.map(\.id))
        #expect(outcomes.map(\.newChapters) == [3, 0])
        #expect(outcomes.map(\.saved) == [2, 0])
        #expect(outcomes.map(\.failed) == [1, 0])
        #expect(outcomes.map(\.missing) == [1, 0])
        #expect(outcomes.allSatisfy { $0.problem == nil && !$0.cancelled })
        #expect(Array(first.chapterRequests.dropFirst(firstBefore)) == [11, 12, 13])
        #expect(second.chapterRequests.count == secondBefore)
        // The book page is also the TOC page here: one update reads it as often as one fetch does.
        #expect(first.server.records.filter { $0.path == "/book/1/" }.count == 2 * tocReads)
        #expect(try store.text(bookID: books[0].id, url: first.baseURL + "/book/1/13.html") == MirrorSite.text(13))

        first.failChapters([])
        var again: [LibraryUpdate.Outcome] = []
        for await event in update.run(books: [books[0]]) {
            if case .bookFinished(let outcome) = event { again.append(outcome) }
        }
        #expect(again.map(\.saved) == [1])
        #expect(again.map(\.missing) == [0])
        #expect(Array(first.chapterRequests.dropFirst(firstBefore + 3)) == [12])
    }

    @Test("a book whose source cannot be read is reported and the next book still updates")
    func unreadableSourceGoesOn() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 3)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 3)
        let folder = try scratchDirectory()
        let store = try LibraryStore(path: folder + "/library.sqlite")
        let fetcher = Self.fetcher()
        try await Self.fetchAll(first, named: "mirror1", store: store, fetcher: fetcher)
        try await Self.fetchAll(second, named: "mirror2", store: store, fetcher: fetcher)
        let books = try store.books().sorted { $0.id < $1.id }
        first.server.stop()
        second.setChapters(4)
        var outcomes: [LibraryUpdate.Outcome] = []
        for await event in LibraryUpdate(store: store, transport: fetcher).run(books: books) {
            if case .bookFinished(let outcome) = event { outcomes.append(outcome) }
        }
        #expect(outcomes.count == 2)
        #expect(outcomes.first?.problem != nil)
        #expect(outcomes.last?.problem == nil)
        #expect(outcomes.last?.saved == 1)
    }
}
