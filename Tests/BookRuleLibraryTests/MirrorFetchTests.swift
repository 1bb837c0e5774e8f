import Foundation
import Testing
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import TestSupport

@Suite("fetch --mirrors: chapters split among sources on different hosts", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct MirrorFetchTests {
    static let delay = 0.05

    static func fetcher(delay: Double) -> PoliteFetcher {
        var policy = PolitenessPolicy.default
        policy.delay = .milliseconds(Int64(delay * 1000))
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        return PoliteFetcher(transport: CurlTransport(), policy: policy)
    }

    static func source(_ site: MirrorSite, _ name: String) throws -> BookSource {
        try #require(try BookSource.load(bytes: Array(site.sourceJSON(named: name).utf8), path: name).first)
    }

    /// A library holding the book from `mirrors[0]` (chapter 1 only) with the other mirrors known.
    static func library(_ mirrors: [MirrorSite], fetcher: PoliteFetcher) async throws -> (LibraryStore, StoredBook) {
        let store = try LibraryStore(path: try scratchDirectory() + "/library.sqlite")
        let fetch = BookFetch(source: try source(mirrors[0], "mirror0"), transport: fetcher, store: store)
        for try await _ in fetch.run(bookURL: mirrors[0].bookURL, range: 1...1) {}
        let book = try #require(try store.books().first)
        for (index, mirror) in mirrors.enumerated().dropFirst() {
            try store.recordSource(bookID: book.id, source: BookSourceRecord(sourceURL: mirror.baseURL, sourceName: "mirror\(index)",
                                                                             json: mirror.sourceJSON(named: "mirror\(index)")),
                                   bookURL: mirror.bookURL)
        }
        return (store, book)
    }

    @Test("three mirrors on 127.0.0.2–.4 give the book a single-source fetch gives, every host paced")
    func threeMirrors() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: 30, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: 30, style: .chinese),
                           MirrorSite(host: "127.0.0.4", chapters: 30, style: .spaced)]
        let fetcher = Self.fetcher(delay: Self.delay)
        let (store, book) = try await Self.library(mirrors, fetcher: fetcher)
        var summary: DownloadSummary?
        let fetch = BookFetch(source: try Self.source(mirrors[0], "mirror0"), transport: fetcher, store: store)
        for try await event in fetch.run(bookURL: mirrors[0].bookURL, mirrors: 3) {
            if case .finished(let final) = event { summary = final }
        }
        #expect(summary?.fetched == 29)
        #expect(summary?.isComplete == true)
        let arrivalsByHost = mirrors.map { $0.server.records.map(\.arrival) }
        // Each chapter was requested once, somewhere; every host did its share.
        let requests = mirrors.map(\.chapterRequests)
        #expect(requests.allSatisfy { !$0.isEmpty }, "\(requests)")
        #expect(requests.flatMap { $0 }.sorted() == Array(1...30))

        // The single-source book, for comparison.
        let single = try LibraryStore(path: try scratchDirectory() + "/library.sqlite")
        for try await _ in BookFetch(source: try Self.source(mirrors[0], "mirror0"), transport: Self.fetcher(delay: 0),
                                     store: single).run(bookURL: mirrors[0].bookURL) {}
        let singleBook = try #require(try single.books().first)
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.map(\.title) == (try single.chapters(bookID: singleBook.id)).map(\.title))
        for chapter in chapters {
            #expect(try store.text(bookID: book.id, url: chapter.url) == (try single.text(bookID: singleBook.id, url: chapter.url)))
        }
        let origins = Set(chapters.compactMap(\.sourceURL))
        #expect(origins == Set(mirrors.map(\.baseURL)))
        // Politeness per host: gaps between one host's requests stay at least the delay.
        for arrivals in arrivalsByHost {
            for (earlier, later) in zip(arrivals, arrivals.dropFirst()) {
                #expect(later - earlier >= .milliseconds(Int64(Self.delay * 1000) - 5))
            }
        }
    }

    @Test("a mirror stopped midway: the other two complete the book")
    func mirrorStopsMidway() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: 30, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: 30, style: .chinese),
                           MirrorSite(host: "127.0.0.4", chapters: 30, style: .spaced)]
        let fetcher = Self.fetcher(delay: 0.02)
        let (store, book) = try await Self.library(mirrors, fetcher: fetcher)
        let stopper = Task {
            try await eventually("three chapters from the third mirror", seconds: 60) {
                mirrors[2].chapterRequests.count >= 3
            }
            mirrors[2].server.stop()
        }
        var summary: DownloadSummary?
        let fetch = BookFetch(source: try Self.source(mirrors[0], "mirror0"), transport: fetcher, store: store)
        for try await event in fetch.run(bookURL: mirrors[0].bookURL, mirrors: 3) {
            if case .finished(let final) = event { summary = final }
        }
        stopper.cancel()
        #expect(summary?.isComplete == true, "\(String(describing: summary?.failures))")
        #expect(summary?.failures.isEmpty == true)
        #expect(mirrors[2].chapterRequests.count < 29)
        let chapters = try store.chapters(bookID: book.id)
        #expect(chapters.allSatisfy { $0.state == .done })
        for chapter in chapters {
            #expect(try store.text(bookID: book.id, url: chapter.url) == MirrorSite.text(chapter.position + 1))
        }
    }
}
