import Foundation
import Testing
@testable import BookRuleEngine
import BookRuleDocument
import BookRuleFont
import BookRuleHTTP
import TestSupport

@Suite("Chapter text drawn by a web font is decoded before the content rule reads it")
struct WebFontPageTests {
    static let source = """
        {"bookSourceUrl": "https://f.test", "bookSourceName": "fonts", "ruleContent": {"content": "//div[@id='c']"}}
        """

    /// The page's text: each character of `text` written as the code point the font draws it with.
    static func encoded(_ text: String, _ made: TestFonts.Made) -> String {
        var codeOf: [String: UInt32] = [:]
        for (code, character) in made.answers { codeOf[character] = code }
        return String(String.UnicodeScalarView(text.map { character in
            codeOf[String(character)].flatMap(Unicode.Scalar.init) ?? character.unicodeScalars.first ?? " "
        }))
    }

    static let text = "他说道：“我们已经到了，你看清楚一些。”她点了点头，心里却还是有些不好的感觉。"

    func engine(_ site: TestSite, decoding: Bool = true) throws -> SourceEngine {
        var options = EngineOptions()
        options.webFonts = decoding ? WebFontReading(decoder: try TestFonts.freshDecoder()) : nil
        return SourceEngine(source: try loadSource(Self.source), transport: site, options: options)
    }

    @Test("a Private Use Area font in a data: URL, given to the content by a class rule inside @media")
    func privateUseDataURL() async throws {
        let made = try await TestFonts.make(source: TestFonts.hei, characters: Self.text, scheme: "pua", format: "woff2", seed: 31)
        let url = "data:font/woff2;base64," + Data(made.bytes).base64EncodedString()
        let site = TestSite(html: ["https://f.test/1.html": """
            <html><head><style>@font-face { font-family: "fz"; src: url("\(url)") format("woff2"); }
            @media screen { .read { font-family: fz, serif; } }</style></head>
            <body><h1>标题</h1><div id="c" class="read"><p>\(Self.encoded(Self.text, made))</p></div></body></html>
            """])
        let content = try await engine(site).content(of: Chapter(index: 0, title: "", url: "https://f.test/1.html"))
        let same = zip(content.text, Self.text).filter { $0 == $1 }.count
        #expect(Double(same) / Double(Self.text.count) >= 0.97, "\(content.text)")
        #expect(!content.text.unicodeScalars.contains(where: ObfuscatedText.isPrivateUse))
        let fonts = try #require(content.fonts)
        #expect(fonts.fonts.map(\.family) == ["fz"])
        #expect(fonts.fonts.first?.url == "data:font/woff2")
        #expect(fonts.changedGlyphs > 20)
        #expect(!content.warnings.contains { ObfuscatedText.isWarning($0) })
        // Turned off, the text stays as the page holds it, and the warning is back.
        let plain = try await engine(site, decoding: false).content(of: Chapter(index: 0, title: "", url: "https://f.test/1.html"))
        #expect(plain.fonts == nil)
        #expect(plain.text.unicodeScalars.contains(where: ObfuscatedText.isPrivateUse))
    }

    @Test("a shuffled font from a linked stylesheet changes only the elements it draws, and the sheet is fetched once")
    func shuffledLinkedSheet() async throws {
        let made = try await TestFonts.make(source: TestFonts.ming, characters: Self.text, scheme: "shuffle", format: "woff", seed: 32)
        let page = { (n: Int) in """
            <html><head><link rel="stylesheet" href="/css/read.css"></head>
            <body><div id="c"><p class="x">\(Self.encoded(Self.text, made))</p><p>原样不变的一段。</p></div></body></html>
            """ }
        let site = TestSite([
            "https://f.test/1.html": .init(body: Array(page(1).utf8)),
            "https://f.test/2.html": .init(body: Array(page(2).utf8)),
            "https://f.test/css/read.css": .init(headers: [HTTPHeader("Content-Type", "text/css")], body: Array("""
                @import url(more.css);
                @font-face { font-family: 'read'; src: url(/fonts/old.eot); src: url(../fonts/read.woff) format('woff'); }
                div#c p.x:first-child { font-family: 'read'; }
                """.utf8)),
            "https://f.test/css/more.css": .init(headers: [HTTPHeader("Content-Type", "text/css")], body: Array("h1 { color: red }".utf8)),
            "https://f.test/fonts/read.woff": .init(headers: [HTTPHeader("Content-Type", "font/woff")], body: made.bytes),
        ])
        let engine = try engine(site)
        for page in ["1.html", "2.html"] {
            let content = try await engine.content(of: Chapter(index: 0, title: "", url: "https://f.test/" + page))
            let lines = content.text.split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            let same = zip(lines.first ?? "", Self.text).filter { $0 == $1 }.count
            #expect(Double(same) / Double(Self.text.count) >= 0.95, "\(lines)")
            #expect(lines.last == "原样不变的一段。")
            #expect(content.fonts?.fonts.first?.url == "https://f.test/fonts/read.woff")
        }
        #expect(site.requests.filter { $0.url.hasSuffix("read.css") }.count == 1)
        #expect(site.requests.filter { $0.url.hasSuffix(".woff") }.allSatisfy { $0.headers.contains { $0.name == "Referer" } })
    }

    @Test("a font that cannot be fetched leaves the text and says why")
    func missingFont() async throws {
        let site = TestSite(html: ["https://f.test/1.html": """
            <html><head><style>@font-face { font-family: gone; src: url(/gone.woff2); } #c { font-family: gone; }</style></head>
            <body><div id="c">他走进了房间，看见桌上放着一封信。</div></body></html>
            """])
        let content = try await engine(site).content(of: Chapter(index: 0, title: "", url: "https://f.test/1.html"))
        #expect(content.text == "他走进了房间，看见桌上放着一封信。")
        #expect(content.fonts?.fonts.first?.error == "https://f.test/gone.woff2 could not be fetched")
        #expect(content.warnings.contains { ObfuscatedText.isWarning($0) && $0.hasSuffix("could not be decoded: https://f.test/gone.woff2 could not be fetched") })
    }

    @Test("CSS declarations: a data: URL's ';' stays inside its url(), and a million ';' in an open url( is one pass", .tags(.realTime))
    func declarations() {
        #expect(StyleSheet.declaration("src", in: "font-family: a; src: url(\"data:font/woff2;base64,AA;A\") format('woff2'); x: y")
            == "url(\"data:font/woff2;base64,AA;A\") format('woff2')")
        #expect(StyleSheet.declaration("font-family", in: "src: url(data:x;y); font-family: 'q;r', serif") == "'q;r', serif")
        let hostile = "src: url(" + String(repeating: ";", count: 1_000_000)
        let start = ContinuousClock.now
        #expect(StyleSheet.declaration("src", in: hostile)?.hasPrefix("url(;;;") == true)
        #expect(ContinuousClock.now - start < TestTime.bound(.seconds(30)))
        let sheet = StyleSheet(css: String(repeating: "@font-face { font-family: f; src: url(a.woff); } ", count: 50)
                               + (0..<40).map { "@font-face { font-family: g\($0); src: url(\($0).woff); }" }.joined(),
                               baseURL: "https://f.test/")
        #expect(sheet.fontFaces.count == StyleSheet.facesPerSheet)
        #expect(sheet.fontFaces.first?.sources.count ?? 0 <= StyleSheet.sourcesPerFace + 1)
    }
}
