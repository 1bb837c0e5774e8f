import Testing
import BookRuleDocument

@Suite("ChineseConverter (OpenCC)")
struct ChineseConversionTests {
    @Test("t2s and s2t")
    func basic() throws {
        let t2s = try ChineseConverter.shared(.traditionalToSimplified)
        let s2t = try ChineseConverter.shared(.simplifiedToTraditional)
        #expect(try t2s.convert("漢字") == "汉字")
        #expect(try s2t.convert("汉字") == "漢字")
        #expect(try t2s.convert("話說天下大勢，分久必合，合久必分。") == "话说天下大势，分久必合，合久必分。")
        // Phrase-level: 发 is 髮 (hair) in 头发 but 發 in 发展.
        #expect(try s2t.convert("头发和发展") == "頭髮和發展")
        #expect(try t2s.convert("") == "")
        #expect(try t2s.convert("ASCII only 123") == "ASCII only 123")
    }

    @Test("shared converters are reused")
    func reuse() throws {
        let first = try ChineseConverter.shared(.traditionalToSimplified)
        let second = try ChineseConverter.shared(.traditionalToSimplified)
        #expect(first === second)
    }

    @Test("text with NUL characters is not cut short")
    func nul() throws {
        let t2s = try ChineseConverter.shared(.traditionalToSimplified)
        #expect(try t2s.convert("漢\u{0}字") == "汉\u{0}字")
    }

    @Test("a missing configuration is a clear error")
    func missing() {
        #expect(throws: ChineseConversionError.self) {
            try ChineseConverter(configurationPath: "/nonexistent/t2s.json")
        }
    }

    @Test("one converter used from many tasks at once")
    func concurrent() async throws {
        let t2s = try ChineseConverter.shared(.traditionalToSimplified)
        let input = String(repeating: "滾滾長江東逝水，浪花淘盡英雄。", count: 20)
        let expected = String(repeating: "滚滚长江东逝水，浪花淘尽英雄。", count: 20)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 where try t2s.convert(input) != expected { return false }
                    return true
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results == Array(repeating: true, count: 8))
    }
}
