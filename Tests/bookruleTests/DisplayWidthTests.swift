#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import bookrule

@Suite("Terminal display widths by wcwidth")
struct DisplayWidthTests {
    @Test("wide CJK, Hangul and emoji take two columns; half-width kana, accents and ASCII one; marks none", arguments: [
        ("书", 2), ("한", 2), ("\u{3000}", 2), ("｡", 1), ("ｱ", 1), ("a", 1), ("e\u{301}", 1), ("😀", 2),
        ("👨\u{200D}👩\u{200D}👧", 2), ("\u{200B}", 0), ("第1章 😀", 8),
    ])
    func columns(_ text: String, _ expected: Int) {
        #expect(DisplayWidth.columns(text) == expected)
    }

    @Test("a prefix never cuts a wide character in half or goes past the columns")
    func prefixFits() {
        #expect(DisplayWidth.prefix("书名😀abc", columns: 5) == "书名")
        #expect(DisplayWidth.prefix("书名😀abc", columns: 6) == "书名😀")
        #expect(DisplayWidth.prefix("ab", columns: 0) == "")
    }

    @Test("the width does not depend on the process locale, which stays \"C\"")
    func processLocaleIsLeftAlone() {
        _ = DisplayWidth.columns("书")
        #expect(String(cString: setlocale(LC_CTYPE, nil)) == "C")
    }
}
