import Foundation
import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleHTTP
@testable import BookRuleRules
import TestSupport

@Suite("Charset decisions and GBK pages")
struct CharsetTests {
    static let chapterGBK: [UInt8] = [0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2]  // 第一章

    func gbkPage(meta: String?) -> [UInt8] {
        let head = meta.map { "<meta http-equiv=\"Content-Type\" content=\"text/html; charset=\($0)\">" } ?? ""
        return Array("<html><head>\(head)</head><body><h1>".utf8) + Self.chapterGBK + Array("</h1></body></html>".utf8)
    }

    @Test("a GBK page is decoded through its <meta>")
    func viaMeta() throws {
        let document = try HTMLDocument(bytes: gbkPage(meta: "gbk"), url: "https://x.test/")
        #expect(document.charset.charset == "GB18030")
        #expect(document.charset.reason == .meta)
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("a GBK page is decoded through the Content-Type header")
    func viaHeader() throws {
        let document = try HTMLDocument(bytes: gbkPage(meta: nil), url: "https://x.test/", contentType: "text/html; charset=GB2312")
        #expect(document.charset.reason == .contentType)
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("when header and meta disagree, the header wins")
    func headerBeatsMeta() throws {
        let document = try HTMLDocument(bytes: gbkPage(meta: "utf-8"), url: "https://x.test/", contentType: "text/html;charset=gbk")
        #expect(document.charset.reason == .contentType)
        #expect(document.charset.declared == "gbk")
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("the source's charset option wins over the header")
    func optionBeatsHeader() throws {
        let document = try HTMLDocument(bytes: gbkPage(meta: nil), url: "https://x.test/",
                                        contentType: "text/html; charset=utf-8", charsetOption: "gbk")
        #expect(document.charset.reason == .sourceOption)
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("a feed's XML declaration names its encoding (a Big5 feed, which the GB18030 fallback would garble); a header wins over it")
    func viaXMLDeclaration() throws {
        let big5: [UInt8] = [0xB2, 0xC4, 0xA4, 0x40, 0xB3, 0xB9]  // 第一章
        let feed = Array("\u{FEFF}\n<?xml version=\"1.0\" encoding='BIG5' standalone=\"yes\"?><rss><channel><item><title>".utf8)
            + big5 + Array("</title></item></channel></rss>".utf8)
        let decision = try CharsetDetector.decide(bytes: feed, sourceOption: nil, contentType: "application/rss+xml")
        #expect(decision.reason == .xmlDeclaration && decision.charset == "BIG5-HKSCS" && decision.declared == "BIG5")
        let document = try HTMLDocument(bytes: feed, url: "https://x.test/rss.xml", contentType: "application/rss+xml")
        #expect(document.sourceText.contains("<title>第一章</title>"))
        let header = try CharsetDetector.decide(bytes: feed, sourceOption: nil, contentType: "text/xml; charset=gbk")
        #expect(header.reason == .contentType)
        #expect(CharsetDetector.xmlDeclarationEncoding(in: Array("<?xml version=\"1.0\"?><rss/>".utf8)) == nil)
        #expect(CharsetDetector.xmlDeclarationEncoding(in: Array("<?xml-stylesheet encoding=\"gbk\"?>".utf8)) == nil)
        #expect(CharsetDetector.xmlDeclarationEncoding(in: Array("<html><?xml version=\"1.0\" encoding=\"gbk\"?>".utf8)) == nil)
        #expect(CharsetDetector.xmlDeclarationEncoding(in: Array("<?xml version=\"1.0\" encoding=\"gb\"x\"?>".utf8)) == "gb")
        #expect(CharsetDetector.xmlDeclarationEncoding(in: Array("<?xml encoding=\"g<b\"?>".utf8)) == nil)
    }

    @Test("undeclared non-UTF-8 bytes fall back to GB18030")
    func fallback() throws {
        let document = try HTMLDocument(bytes: gbkPage(meta: nil), url: "https://x.test/")
        #expect(document.charset.reason == .fallback)
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("a page that says gbk but is UTF-8 is decoded as UTF-8, and the decision says why")
    func mislabelledUTF8() throws {
        let html = "<html><head><meta charset=gbk></head><body><h1>第一章</h1></body></html>"
        let document = try HTMLDocument(bytes: Array(html.utf8), url: "https://x.test/")
        #expect(document.charset.charset == "UTF-8")
        #expect(document.charset.note == "<meta> tag says gbk but the bytes are valid UTF-8")
        #expect(try evaluate("//h1/text()", on: document) == ["第一章"])
    }

    @Test("an invalid byte in a GBK page becomes U+FFFD and the rest still parses")
    func invalidByte() throws {
        var bytes = gbkPage(meta: "gbk")
        let h1 = bytes.firstRange(of: Array("<h1>".utf8), from: 0)?.upperBound ?? 0
        bytes.insert(0xFF, at: h1)
        let document = try HTMLDocument(bytes: bytes, url: "https://x.test/")
        #expect(try evaluate("//h1/text()", on: document) == ["\u{FFFD}第一章"])
    }

    @Test("Big5 pages decode too")
    func big5() throws {
        let bytes = Array("<html><head><meta charset=big5></head><body><p>".utf8) + [0xB2, 0xC4, 0xA4, 0x40, 0xB3, 0xB9]
            + Array("</p></body></html>".utf8)
        #expect(try evaluate("//p/text()", on: HTMLDocument(bytes: bytes, url: "https://x.test/")) == ["第一章"])
    }

    @Test("a search key is percent-encoded in GBK for a GBK site")
    func gbkKey() throws {
        #expect(try URLEncoding.component("斗破 苍穹", charset: "GB18030") == "%B6%B7%C6%C6%20%B2%D4%F1%B7")
        #expect(try URLEncoding.component("斗破", charset: "UTF-8") == "%E6%96%97%E7%A0%B4")
    }

    @Test("an unknown charset option is a clear error")
    func unknownCharset() {
        #expect(throws: DocumentError.charset(.unsupported("klingon"))) {
            try HTMLDocument(bytes: [0x41], url: "https://x.test/", charsetOption: "klingon")
        }
    }
}

@Suite("Pages libxml2 cannot read to the end")
struct TruncatedPageTests {
    static func nested(_ depth: Int) -> String {
        "<html><body>" + String(repeating: "<font>", count: depth) + "x</font><div id='content'>after</div></body></html>"
    }

    @Test("markup nested deeper than libxml2 reads is flagged and reported, not silently cut")
    func deepNesting() async throws {
        let deep = Self.nested(HTMLDocument.maxDepth + 100)
        let document = try page(deep)
        #expect(document.isTruncated)
        #expect(try !page("<html><body><p>fine<b>broken</p></body></html>").isTruncated)

        let source = try loadSource("""
        {"bookSourceUrl": "https://a.test", "ruleContent": {"content": "//div[@id='content']"}}
        """)
        let site = TestSite(html: ["https://a.test/1.html": deep])
        let content = try await SourceEngine(source: source, transport: site)
            .content(of: Chapter(index: 0, title: "", url: "https://a.test/1.html"))
        #expect(content.warnings.contains { $0.contains("more than \(HTMLDocument.maxDepth) levels deep") })
    }

    @Test("hundreds of unclosed tags (libxml2 stops at 256 by default) are read to the end")
    func unclosedTagsAreRead() async throws {
        let text = Self.nested(1000)
        #expect(try !page(text).isTruncated)
        let source = try loadSource("""
        {"bookSourceUrl": "https://a.test", "ruleContent": {"content": "//div[@id='content']"}}
        """)
        let site = TestSite(html: ["https://a.test/1.html": text])
        let content = try await SourceEngine(source: source, transport: site)
            .content(of: Chapter(index: 0, title: "", url: "https://a.test/1.html"))
        #expect(content.text == "after")
        #expect(content.warnings.isEmpty)
    }

    @Test("a page nested 4,000 levels deep is parsed, searched and turned into text on a 512 KiB stack")
    func deepPageOnASmallStack() async throws {
        let bytes = Array(Self.nested(4000).utf8)
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            let thread = Thread {
                do {
                    let document = try HTMLDocument(bytes: bytes, url: "https://a.test/")
                    let body = try RuleParser.parse("//body", field: "content", kind: .string)
                    let tail = try RuleParser.parse("//div/text()", field: "content", kind: .string)
                    let environment = RuleEnvironment(baseURL: "https://a.test/")
                    let text = try body.strings(in: document.rootContext, environment: environment)
                    let found = try tail.strings(in: document.rootContext, environment: environment)
                    continuation.resume(returning: [String(document.isTruncated)] + text + found)
                } catch {
                    continuation.resume(returning: ["error: \(error)"])
                }
            }
            thread.stackSize = 512 << 10
            thread.start()
        }
        #expect(outcome == ["false", "x\nafter", "after"])
    }
}

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    @Test("agrees with the standard library on random buffers around the eight-byte ASCII skip")
    func agreesWithStandardLibrary() {
        var random = SeededRandomNumberGenerator(seed: 20261130)
        let pieces: [[UInt8]] = [
            Array("<a href=\"1.html\">".utf8), Array("第一章".utf8), [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE4, 0xB8], [0x80], [0xF0, 0x9F, 0x98, 0x80], Array("plain ascii text".utf8), [0xFF],
            // Three-byte leads on the short path, with good and bad continuations.
            [0xEF, 0xBF, 0xBF], [0xE1, 0x80], [0xEE, 0x41, 0x80], [0xEC, 0x80, 0xC0], [0xED, 0x9F, 0xBF], [0xE0, 0x9F, 0x80],
        ]
        for _ in 0..<3000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &random) {
                bytes += pieces[Int.random(in: 0..<pieces.count, using: &random)]
            }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            let result = UTF8Validation.check(bytes)
            #expect((result != .invalid) == expected, "\(bytes)")
            if expected { #expect((result == .ascii) == bytes.allSatisfy { $0 < 0x80 }, "\(bytes)") }
        }
    }
}
