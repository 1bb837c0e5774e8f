import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
import TestSupport

/// How page markup becomes reader text, for the quirks real pages showed (see ConformanceTests).
@Suite("Text formatting of real-page quirks")
struct TextFormattingTests {
    @Test("</br> is a line break, as in HTML5 parsers (jsoup, browsers); libxml2 alone drops it")
    func breakEndTag() throws {
        let document = try page("""
            <html><body><div id="content"><a href="/report">章节错误/点此举报</a></br>
            &nbsp;&nbsp;“小黄——”<br />第二行</BR >第三行</br/>第四行<br/></div><p>x</bra>y</p></body></html>
            """)
        let text = try evaluate("//div[@id='content']", on: document)
        #expect(text == ["章节错误/点此举报\n“小黄——”\n第二行\n第三行\n第四行"])
        // An unknown end tag that merely starts with </br is left alone.
        #expect(try evaluate("//p", on: document) == ["xy"])
        // Regex rules on the raw page still see the bytes as received.
        #expect(document.sourceText.contains("</br>"))
    }

    @Test("a page without </br> is parsed from its own bytes")
    func noBreakEndTag() {
        let bytes = Array("<p>a<br>b</p><b>c</b>".utf8)
        #expect(HTMLDocument.breakEndTagsAsBreaks(bytes) == bytes)
        #expect(HTMLDocument.breakEndTagsAsBreaks(Array("a</br".utf8)) == Array("a</br".utf8))
        #expect(HTMLDocument.breakEndTagsAsBreaks(Array("a</br>b".utf8)) == Array("a<br>b".utf8))
    }

    @Test("an element's text holding a literal &name; keeps its paragraphs")
    func referenceInText() {
        // An element's value is text; one that happens to hold `&amp;`-like text used to be re-read as
        // markup, which turned every line break into a space.
        let value = "第一段 &amp; 续\n第二段《idon&039;t》\n第三段"
        #expect(HTMLTextFormatter.text(fromMarkup: value) == "第一段 & 续\n第二段《idon&039;t》\n第三段")
        // `&039;` is not a character reference (a name starts with a letter): plain text, nothing re-read.
        #expect(!HTMLTextFormatter.containsMarkup("idon&039;t"))
        #expect(HTMLTextFormatter.containsMarkup("a&#39;b"))
        #expect(HTMLTextFormatter.containsMarkup("a&#x27;b"))
        #expect(HTMLTextFormatter.containsMarkup("a&nbsp;b"))
        #expect(HTMLTextFormatter.text(fromMarkup: "a&#39;b\nc") == "a'b\nc")
        // Markup with tags is still markup: its line breaks are spaces.
        #expect(HTMLTextFormatter.text(fromMarkup: "<b>a\nb</b><br>c") == "a b\nc")
    }

    @Test("&emsp; and &ensp; indents are trimmed off paragraphs as U+3000 ones are (Legado trims every space)")
    func emSpaceIndents() throws {
        let document = try page("<div id='c'>&emsp;&emsp;第一段&emsp;<br>\u{2003}\u{2003}第二段<br>&ensp;&ensp;第三段<br>"
            + "\u{3000}\u{3000}第四段<br>\u{200B}第五段</div>")
        #expect(try evaluate("//div[@id='c']", on: document) == ["第一段\n第二段\n第三段\n第四段\n\u{200B}第五段"])
        #expect(try evaluate("id.c@html", on: document).first.map(HTMLTextFormatter.text(fromMarkup:))
            == "第一段\n第二段\n第三段\n第四段\n\u{200B}第五段")
        #expect("\u{2003}书名\u{2002}".trimmingParagraphSpace() == "书名")
    }

    @Test("JSoup text is jsoup's text(): NBSP is whitespace, zero-width space and soft hyphen vanish, U+3000 stays")
    func jsoupText() throws {
        let document = try page("<ul><li><a href='/1'>\u{3000}第一章&nbsp;&nbsp;开始\u{200B}了&shy;吗\u{3000}</a></li>"
            + "<li><a href='/2'>&nbsp; Chapter\n\t2 &nbsp;</a></li></ul>")
        #expect(try evaluate("tag.a@text", on: document) == ["\u{3000}第一章 开始了吗\u{3000}", "Chapter 2"])
        #expect(try evaluate("tag.a@ownText", on: document) == ["\u{3000}第一章 开始了吗\u{3000}", "Chapter 2"])
        #expect(HTMLTextFormatter.jsoupNormalisedWhitespace("plain") == "plain")
        #expect(HTMLTextFormatter.jsoupNormalisedWhitespace(" a  b ") == "a b")
        #expect(HTMLTextFormatter.jsoupNormalisedWhitespace("\u{00A0}\u{200B}") == "")
    }

    @Test("a chapter title is normalised the same wherever its whitespace falls in the eight-byte scan")
    func titleNormalisingAtEveryOffset() {
        // Whitespace, NBSP, soft hyphen and zero-width space at every offset across the scan's eight-byte
        // words, among CJK characters whose continuation bytes look like them (章 ends in A0, 下 in 8B).
        let specials = [" ", "  ", "\t", "\n", "\u{00A0}", "\u{00AD}", "\u{200B}", " \u{00A0} "]
        var scratch: [UInt8] = []
        for padding in 0...17 {
            let head = String(repeating: "x", count: padding)
            for special in specials {
                for title in [head + special + "第一章下", "章" + head + special + "“下”", special + head + "章", head + "下" + special] {
                    let expected = Self.jsoupReference(title)
                    #expect(HTMLTextFormatter.jsoupNormalisedWhitespace(title) == expected, "\(title.debugDescription)")
                    #expect(HTMLTextFormatter.singleLine(utf8: Array(title.utf8), scratch: &scratch, isTitle: true) == expected,
                            "\(title.debugDescription)")
                }
            }
            let plain = head + "第一章下“引”" + head
            #expect(HTMLTextFormatter.jsoupNormalisedWhitespace(plain) == plain)
        }
    }

    /// jsoup's `text()` whitespace rules, written the slow way for the test above.
    private static func jsoupReference(_ text: String) -> String {
        var words: [String] = []
        var current = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case " ", "\t", "\n", "\r", "\u{0C}", "\u{00A0}":
                if !current.isEmpty { words.append(current) }
                current = ""
            case "\u{00AD}", "\u{200B}":
                continue
            default:
                current.unicodeScalars.append(scalar)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words.joined(separator: " ")
    }
}
