import Testing
@testable import BookRuleDocument

@Suite("Undeclared CJK pages: the last charset fallback through uchardet")
struct CharsetGuessTests {
    static let cases: [(String, [UInt8], String, String, String)] = [
        ("Shift_JIS", UndeclaredPages.shiftJIS, "CP932", UndeclaredPages.shiftJISTitle, UndeclaredPages.shiftJISText),
        ("EUC-KR", UndeclaredPages.eucKR, "CP949", UndeclaredPages.eucKRTitle, UndeclaredPages.eucKRText),
        ("Big5", UndeclaredPages.big5, "BIG5-HKSCS", UndeclaredPages.big5Title, UndeclaredPages.big5Text),
        ("GBK", UndeclaredPages.gbk, "GB18030", UndeclaredPages.gbkTitle, UndeclaredPages.gbkText),
    ]

    @Test("an undeclared page is decoded with the charset its text is in", arguments: cases)
    func decodes(_ name: String, _ bytes: [UInt8], _ charset: String, _ title: String, _ text: String) throws {
        let document = try HTMLDocument(bytes: bytes, url: "https://x.test/")
        #expect(document.charset.charset == charset, "\(name): \(document.charset)")
        #expect(document.charset.reason == .detected, "\(name)")
        let h1 = try XPathExpression("string(//h1)").evaluate(at: document.root)
        guard case .string(let heading) = h1 else { Issue.record("\(name): \(h1)"); return }
        #expect(heading == title, "\(name)")
        let paragraph = try XPathExpression("string(//div[@id='content']/p)").evaluate(at: document.root)
        guard case .string(let body) = paragraph else { Issue.record("\(name): \(paragraph)"); return }
        #expect(body == text, "\(name)")
    }

    @Test("a declared charset still wins over what uchardet would guess")
    func declaredWins() throws {
        let decision = try CharsetDetector.decide(bytes: UndeclaredPages.shiftJIS, sourceOption: nil,
                                                  contentType: "text/html; charset=gbk")
        #expect(decision.charset == "GB18030")
        #expect(decision.reason == .contentType)
    }

    @Test("too little text to judge falls back to GB18030, as before")
    func shortFallsBack() throws {
        let decision = try CharsetDetector.decide(bytes: [0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2], sourceOption: nil,
                                                  contentType: nil)
        #expect(decision.charset == "GB18030")
        #expect(decision.reason == .fallback)
    }

    @Test("uchardet's names map onto the charsets bookrule decodes with")
    func normalisedNames() {
        #expect(CharsetGuess.normalised("UHC") == "EUC-KR")
        #expect(CharsetGuess.normalised("ASCII") == nil)
        #expect(CharsetGuess.normalised("shift_jis") == "SHIFT_JIS")
        #expect(CharsetGuess.detect(Array("plain ASCII text".utf8)) == nil)
        #expect(CharsetGuess.detect(Array("汉字".utf8)) == "UTF-8")
    }
}
