import Testing
@testable import BookRuleLibrary
import TestSupport

@Suite("Chapter titles and TOC alignment across sources")
struct ChapterAlignmentTests {
    @Test("Chinese numerals: units, 零, 两, financial forms, digit by digit")
    func numerals() {
        let cases: [(String, Int)] = [
            ("一", 1), ("十", 10), ("十二", 12), ("二十", 20), ("一百零三", 103), ("一百一十", 110), ("两千", 2000),
            ("一千二百", 1200), ("一千零一", 1001), ("九千九百九十九", 9999), ("一万零一", 10001), ("十万", 100_000),
            ("壹佰贰拾叁", 123), ("二〇二四", 2024), ("一二三", 123), ("12", 12),
        ]
        for (text, value) in cases { #expect(ChineseNumeral.value(text[...]) == value, "\(text)") }
        #expect(ChineseNumeral.value("") == nil)
        #expect(ChineseNumeral.value("十a") == nil)
        for number in [1, 9, 10, 11, 19, 20, 99, 100, 101, 110, 999, 1000, 1001, 1010, 1200, 2000, 2345, 10_000, 12_001] {
            #expect(ChineseNumeral.value(MirrorSite.chineseNumeral(number)[...]) == number, "\(number)")
        }
    }

    @Test("titles: 第十二章/第12章/Chapter 12/12., volume prefixes, punctuation, full width and spacing")
    func titles() {
        let same = ["第十二章 风起", "第12章 风起", "第 12 章风起", "第１２章　风起！", "第一卷 山海 第十二章 风起",
                    "卷一 第12章：风起", "Chapter 12 风起", "chapter 12: 风起", "12. 风起", "第十二节 风起"]
        for title in same { #expect(ChapterTitle(title) == ChapterTitle("第12章 风起"), "\(title) → \(ChapterTitle(title))") }
        #expect(ChapterTitle("Volume 2 Chapter 3 The Road").number == 3)
        #expect(ChapterTitle("Volume 2 Chapter 3 The Road").words == "theroad")
        #expect(ChapterTitle("第一百零三章 归途").number == 103)
        #expect(ChapterTitle("第两千章 终").number == 2000)
        #expect(ChapterTitle("序章 开端").number == nil)
        #expect(ChapterTitle("序章 开端").words == "序章开端")
        #expect(ChapterTitle("第十二章 风起") != ChapterTitle("第十三章 风起"))
        #expect(ChapterTitle("第二卷 风起").number == nil)
        #expect(ChapterTitle("第二卷 风起").words == "风起")
    }

    @Test("a 1,200-chapter TOC in Chinese numerals and other spacing aligns with zero mismatches")
    func twelveHundred() {
        let saved = (1...1200).map { MirrorSite.title($0, style: .arabic) }
        for style in [MirrorSite.TitleStyle.chinese, .spaced] {
            let incoming = (1...1200).map { MirrorSite.title($0, style: style) }
            let alignment = ChapterAlignment(saved: saved, incoming: incoming)
            #expect(alignment.matches.count == 1200)
            #expect(alignment.matches.allSatisfy { $0.saved == $0.incoming && $0.isCertain })
            #expect(alignment.new.isEmpty && alignment.unmatched.isEmpty)
        }
    }

    @Test("new chapters, chapters gone, and words that differ (matched by number, not certain)")
    func partial() {
        let saved = ["序章", "第1章 甲", "第2章 乙", "第3章 丙", "第4章 丁（删）"]
        let incoming = ["序章", "第一章 甲", "第二章 乙（求月票）", "第三章 丙", "第五章 戊", "第六章 己"]
        let alignment = ChapterAlignment(saved: saved, incoming: incoming)
        #expect(alignment.matches.map { [$0.saved, $0.incoming] } == [[0, 0], [1, 1], [2, 2], [3, 3]])
        #expect(alignment.matches.map(\.confidence) == [.title, .title, .number, .title])
        #expect(alignment.new == [4, 5])
        #expect(alignment.unmatched == [4])
        #expect(alignment.certainSavedIndex == [0: 0, 1: 1, 3: 3])
    }

    @Test("repeated titles pair in order; unequal repeats are paired by position and not certain")
    func repeats() {
        let saved = ["第一卷 第1章 开始", "第1章 开始", "第2章 继续"]
        let incoming = ["第1章 开始", "第1章 开始", "第2章 继续"]
        let alignment = ChapterAlignment(saved: saved, incoming: incoming)
        #expect(alignment.matches.map { [$0.saved, $0.incoming] } == [[0, 0], [1, 1], [2, 2]])
        #expect(alignment.matches.allSatisfy { $0.isCertain })
        let fewer = ChapterAlignment(saved: saved, incoming: ["第1章 开始", "第2章 继续"])
        #expect(fewer.matches.map(\.confidence) == [.position, .title])
        #expect(fewer.unmatched == [1])
        #expect(ChapterAlignment(saved: [], incoming: []).matches.isEmpty)
    }
}
