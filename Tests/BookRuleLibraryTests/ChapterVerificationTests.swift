import Foundation
import Testing
@testable import BookRuleLibrary
import TestSupport

@Suite("TextComparison and the verdicts of fetch --verify")
struct TextComparisonTests {
    @Test func sameTextDespiteSpacingAndPunctuation() {
        let comparison = TextComparison("第一段：镜像正文，甲乙丙丁。\n　　第二段", "第一段 镜像正文 甲乙丙丁 第二段")
        #expect(comparison.overlap == 1)
        #expect(comparison.lengthRatio == 1)
    }

    @Test func aCutOffCopyIsContainedButShort() {
        let whole = MirrorSite.text(5)
        let cut = MirrorSite.paragraphs(5)[0]
        let comparison = TextComparison(cut, whole)
        #expect(comparison.lengthRatio < 0.5)
        #expect(comparison.containment == 1)
        #expect(comparison.overlap < 0.5)
    }

    @Test func aDecoySharesAlmostNothing() {
        let comparison = TextComparison(MirrorSite.decoyParagraphs(5).joined(separator: "\n"), MirrorSite.text(5))
        #expect(comparison.overlap < 0.05)
    }

    @Test func theSampleIsSpreadWithFirstAndLast() {
        #expect(ChapterVerification.spread(Array(0..<100), count: 5) == [0, 24, 49, 74, 99])
        #expect(ChapterVerification.spread(Array(0..<3), count: 8) == [0, 1, 2])
        #expect(ChapterVerification.spread(Array(0..<9), count: 1) == [4])
    }
}

@Suite("fetch --verify: chapters compared across mirrors", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct ChapterVerificationTests {
    /// A library with the book fetched from `mirrors[0]` and every other mirror known.
    static func library(_ mirrors: [MirrorSite]) async throws -> (BookFetch, StoredBook) {
        let fetcher = MirrorFetchTests.fetcher(delay: 0.01)
        let (store, book) = try await MirrorFetchTests.library(mirrors, fetcher: fetcher)
        let fetch = BookFetch(source: try MirrorFetchTests.source(mirrors[0], "mirror0"), transport: fetcher, store: store)
        for try await _ in fetch.run(bookURL: mirrors[0].bookURL) {}
        return (fetch, book)
    }

    @Test("three mirrors: one serving a cut-off chapter and one a decoy are named, the rest agree")
    func threeMirrors() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: 8, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: 8, style: .chinese),
                           MirrorSite(host: "127.0.0.4", chapters: 8, style: .spaced)]
        mirrors[1].truncateChapters([3])
        mirrors[2].decoyChapters([6])
        let (fetch, book) = try await Self.library(mirrors)
        let report = try await fetch.verify(bookID: book.id, sampleSize: 8)
        #expect(report.sources == ["mirror0", "mirror1", "mirror2"])
        #expect(report.leftOut.isEmpty)
        #expect(report.chapters.count == 8)
        #expect(report.chapters.allSatisfy { $0.copies == 3 })
        let flagged = report.chapters.filter { !$0.findings.isEmpty }
        #expect(flagged.map(\.position) == [2, 5])
        let truncated = try #require(flagged.first?.findings.first)
        #expect(truncated.kind == .truncated && truncated.sourceName == "mirror1" && flagged.first?.findings.count == 1)
        #expect((truncated.lengthRatio ?? 1) < 0.5)
        let decoy = try #require(flagged.last?.findings.first)
        #expect(decoy.kind == .differentText && decoy.sourceName == "mirror2" && flagged.last?.findings.count == 1)
        #expect((decoy.overlap ?? 1) < 0.1)
        #expect(report.suspect.map(\.position) == [2, 5])
    }

    @Test("two mirrors: a cut-off copy is still told apart; a decoy is undecided; a failing one is unavailable")
    func twoMirrors() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: 6, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: 6, style: .chinese)]
        let (fetch, book) = try await Self.library(mirrors)
        mirrors[1].truncateChapters([2])
        mirrors[1].decoyChapters([4])
        mirrors[1].failChapters([5])
        let report = try await fetch.verify(bookID: book.id, sampleSize: 6)
        let byPosition = Dictionary(uniqueKeysWithValues: report.chapters.map { ($0.position, $0.findings) })
        #expect(byPosition[1]?.map(\.kind) == [.truncated])
        #expect(byPosition[1]?.first?.sourceName == "mirror1")
        #expect(Set(byPosition[3]?.map(\.kind) ?? []) == [.undecided])
        #expect(byPosition[3]?.count == 2)
        #expect(byPosition[4]?.map(\.kind) == [.unavailable])
        #expect(byPosition[0]?.isEmpty == true && byPosition[2]?.isEmpty == true && byPosition[5]?.isEmpty == true)
        #expect(report.suspect.map(\.position) == [1])
    }
}
