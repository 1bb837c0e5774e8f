import BookRuleHTTP
import Testing
@testable import BookRuleEngine

@Suite("TOC de-duplication keeps the last chapter of each page key")
struct DuplicateChaptersTests {
    /// What the engine did before the table of its own: a `Set` of keys, from the end.
    static func reference(_ chapters: [Chapter]) -> (kept: [Bool], duplicates: Int) {
        var seen = Set<String>()
        var kept = [Bool](repeating: true, count: chapters.count)
        var duplicates = 0
        for index in chapters.indices.reversed() where !chapters[index].isVolume && !chapters[index].url.isEmpty {
            let key = chapters[index].url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            if !seen.insert(key).inserted {
                kept[index] = false
                duplicates += 1
            }
        }
        return (kept, duplicates)
    }

    static func randomChapters(_ random: inout SeededRandomNumberGenerator) -> [Chapter] {
        let urls = ["https://a.test/1.html", "https://a.test/1.html#top", "https://a.test/2.html", "https://a.test/第3章.html",
                    "", "https://a.test/12345678.html", "https://a.test/12345678.htm", "#", "https://a.test/1.html#"]
        return (0..<Int.random(in: 0...40, using: &random)).map { index in
            Chapter(index: index, title: "c\(index)", url: urls[Int.random(in: 0..<urls.count, using: &random)],
                    isVolume: Int.random(in: 0..<8, using: &random) == 0)
        }
    }

    @Test("agrees with a Set of keys on random lists (fragments, volumes, empty links)")
    func agreesWithSet() {
        var random = SeededRandomNumberGenerator(seed: 20261202)
        for _ in 0..<2000 {
            let chapters = Self.randomChapters(&random)
            let marked = DuplicateChapters.marked(in: chapters)
            let expected = Self.reference(chapters)
            #expect(marked.kept == expected.kept && marked.duplicates == expected.duplicates, "\(chapters.map(\.url))")
        }
    }

    @Test("a list whose probes run over the budget is finished by a Set with the same answer")
    func overBudget() {
        var random = SeededRandomNumberGenerator(seed: 7)
        for budget in [0, 1, 3, 10] {
            for _ in 0..<300 {
                let chapters = Self.randomChapters(&random)
                let marked = DuplicateChapters.marked(in: chapters, probeBudget: budget)
                let expected = Self.reference(chapters)
                #expect(marked.kept == expected.kept && marked.duplicates == expected.duplicates, "budget \(budget): \(chapters.map(\.url))")
            }
        }
    }

    @Test("5,000 distinct links stay, and their repeats go")
    func large() {
        let distinct = (0..<5000).map { Chapter(index: $0, title: "\($0)", url: "https://a.test/book/\($0).html") }
        #expect(DuplicateChapters.marked(in: distinct).duplicates == 0)
        let twice = distinct + distinct.map { var copy = $0; copy.url += "#again"; return copy }
        let marked = DuplicateChapters.marked(in: twice)
        #expect(marked.duplicates == 5000 && marked.kept == Array(repeating: false, count: 5000) + Array(repeating: true, count: 5000))
    }
}
