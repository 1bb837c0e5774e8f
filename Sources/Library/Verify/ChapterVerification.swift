import Foundation
import BookRuleEngine

/// Compares a sample of a book's chapters across the sources the book is known on (`fetch --verify`), to
/// catch a source that serves cut-off chapters or other text (a decoy, an anti-scraping page, a wrong
/// chapter) without reading the book.
///
/// Every known source's book page and TOC are read once and aligned with the library's chapters
/// (`ChapterAlignment`, certain matches only). The sample is `sampleSize` chapters spread evenly over those
/// that at least two sources have; each is fetched from every source that has it (through the engines
/// `makeEngine` builds, so through the one polite fetcher; hosts in parallel), and the copies are compared
/// with `TextComparison`:
///
/// - two copies **agree** when their shingle overlap is ≥ `agreement` and their lengths are within 0.8–1.25
///   of each other;
/// - with three or more copies, one that agrees with none while two others agree is **truncated** when it is
///   shorter than 0.8 of the others' median length and ≥ 0.8 of its shingles are in another copy, otherwise a
///   **different text**;
/// - with two copies that disagree, the shorter is **truncated** by the same test; otherwise, and when no two
///   of several copies agree, each copy is **undecided** (nothing says which is right);
/// - a source that fails to give a chapter it lists is **unavailable** for it.
public struct ChapterVerification: Sendable {
    /// Where the book and its known sources are.
    public let store: LibraryStore
    /// The engine for a known source (over the shared transport and pacing).
    public let makeEngine: @Sendable (BookSource) -> SourceEngine
    /// The least overlap at which two copies agree. Default 0.5.
    public var agreement: Double = 0.5

    /// A verification reading sources with `makeEngine` (for a `BookFetch`, its `fallbackEngine`).
    public init(store: LibraryStore, makeEngine: @escaping @Sendable (BookSource) -> SourceEngine) {
        self.store = store
        self.makeEngine = makeEngine
    }

    /// Verifies up to `sampleSize` chapters of book `bookID` (at least 1). Throws `LibraryError` when the book
    /// cannot be read from the library, and `CancellationError`; a source that cannot be read is reported in
    /// `leftOut`, a chapter a source cannot give as `.unavailable`.
    public func run(bookID: Int64, sampleSize: Int = 8) async throws -> VerificationReport {
        let listed = try store.chapters(bookID: bookID)
        let known = try store.knownSources(bookID: bookID).sorted { $0.isCurrent && !$1.isCurrent }
        var candidates: [ChapterFallback.Candidate] = []
        var leftOut: [VerificationReport.LeftOut] = []
        for source in known {
            do {
                candidates.append(try await ChapterFallback.candidate(source, listed: listed, makeEngine: makeEngine))
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                leftOut.append(.init(name: source.sourceName, reason: String(describing: error)))
            }
        }
        let eligible = listed.indices.filter { index in
            !listed[index].isVolume && candidates.filter { $0.incomingByURL[listed[index].url] != nil }.count >= 2
        }
        var chapters: [VerificationReport.Chapter] = []
        for index in Self.spread(eligible, count: max(1, sampleSize)) {
            try Task.checkCancellation()
            let chapter = listed[index]
            let having = candidates.filter { $0.incomingByURL[chapter.url] != nil }
            let copies = await withTaskGroup(of: (Int, Result<String, any Error>).self) { group in
                for (offset, candidate) in having.enumerated() {
                    group.addTask {
                        do {
                            guard let text = try await candidate.text(forChapterAt: chapter.url) else {
                                return (offset, .failure(DownloadError.emptyChapter(url: chapter.url, reason: nil)))
                            }
                            return (offset, .success(text))
                        } catch {
                            return (offset, .failure(error))
                        }
                    }
                }
                var results = [Result<String, any Error>?](repeating: nil, count: having.count)
                for await (offset, result) in group { results[offset] = result }
                return results
            }
            try Task.checkCancellation()
            var findings: [VerificationReport.Finding] = []
            var texts: [(known: KnownSource, text: TextComparison.Shingled)] = []
            for (candidate, copy) in zip(having, copies) {
                switch copy {
                case .success(let text)?:
                    texts.append((candidate.known, TextComparison.Shingled(text)))
                case .failure(let error)?:
                    findings.append(.init(sourceName: candidate.known.sourceName, sourceURL: candidate.known.sourceURL,
                                          kind: .unavailable, lengthRatio: nil, overlap: nil,
                                          reason: String(describing: error)))
                case nil:
                    break
                }
            }
            findings = judge(texts) + findings
            chapters.append(.init(position: chapter.position, title: chapter.title, url: chapter.url,
                                  copies: texts.count, findings: findings))
        }
        return VerificationReport(sources: candidates.map(\.known.sourceName), leftOut: leftOut, chapters: chapters)
    }

    /// Up to `count` of `items`, evenly spread, the first and last included.
    static func spread<T>(_ items: [T], count: Int) -> [T] {
        guard items.count > count else { return items }
        guard count > 1 else { return [items[items.count / 2]] }
        var picked: [Int] = []
        for step in 0..<count {
            let index = step * (items.count - 1) / (count - 1)
            if picked.last != index { picked.append(index) }
        }
        return picked.map { items[$0] }
    }

    /// What looks wrong among the copies of one chapter (see the type's documentation).
    func judge(_ copies: [(known: KnownSource, text: TextComparison.Shingled)]) -> [VerificationReport.Finding] {
        let count = copies.count
        guard count >= 2 else { return [] }
        var comparison = [[TextComparison]](repeating: [], count: count)
        for first in 0..<count {
            comparison[first] = (0..<count).map { TextComparison(copies[first].text, copies[$0].text) }
        }
        func agree(_ first: Int, _ second: Int) -> Bool {
            let pair = comparison[first][second]
            return pair.overlap >= agreement && pair.lengthRatio >= 0.8 && pair.lengthRatio <= 1.25
        }
        func others(_ index: Int) -> [Int] { (0..<count).filter { $0 != index } }
        func medianLength(excluding index: Int) -> Double {
            let lengths = others(index).map { copies[$0].text.length }.sorted()
            guard !lengths.isEmpty else { return 0 }
            let middle = lengths.count / 2
            return lengths.count % 2 == 1 ? Double(lengths[middle]) : Double(lengths[middle - 1] + lengths[middle]) / 2
        }
        func finding(_ index: Int, _ kind: VerificationReport.Finding.Kind) -> VerificationReport.Finding {
            let median = medianLength(excluding: index)
            let ratio = median == 0 ? 0 : Double(copies[index].text.length) / median
            let overlap = others(index).map { comparison[index][$0].overlap }.max() ?? 0
            let contained = others(index).map { comparison[index][$0].containment }.max() ?? 0
            let percent = { (value: Double) in "\(Int((value * 100).rounded()))%" }
            let reason: String
            switch kind {
            case .truncated:
                reason = "\(percent(ratio)) of the other copies' length, and \(percent(contained)) of it is in theirs"
            case .differentText:
                reason = "shares \(percent(overlap)) of its text with the other copies (length \(percent(ratio)) of theirs)"
            case .undecided, .unavailable:
                reason = "the copies differ (overlap \(percent(overlap)), length \(percent(ratio))) and no two agree"
            }
            return .init(sourceName: copies[index].known.sourceName, sourceURL: copies[index].known.sourceURL,
                         kind: kind, lengthRatio: ratio, overlap: overlap, reason: reason)
        }
        func looksCut(_ index: Int) -> Bool {
            let median = medianLength(excluding: index)
            let contained = others(index).map { comparison[index][$0].containment }.max() ?? 0
            return median > 0 && Double(copies[index].text.length) < 0.8 * median && contained >= 0.8
        }

        let lonely = (0..<count).filter { index in !others(index).contains { agree(index, $0) } }
        guard !lonely.isEmpty else { return [] }
        let majority = (0..<count).contains { first in others(first).contains { agree(first, $0) } }
        if count >= 3 && majority {
            return lonely.map { finding($0, looksCut($0) ? .truncated : .differentText) }
        }
        // Two copies that disagree, or several of which none agree: only a cut-off copy can be told.
        let cut = lonely.filter(looksCut)
        if !cut.isEmpty { return cut.map { finding($0, .truncated) } }
        return lonely.map { finding($0, .undecided) }
    }
}
