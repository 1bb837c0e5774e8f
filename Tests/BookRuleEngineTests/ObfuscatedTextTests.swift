import Testing
@testable import BookRuleEngine
import BookRuleJSON
import BookRuleDocument
import BookRuleRules
import BookRuleHTTP
import BookRuleLibrary
import BookRuleCheck
import TestSupport

@Suite("Chapter text obfuscated by a web font is named in the content warnings")
struct ObfuscatedTextTests {
    static let source = """
        {"bookSourceUrl": "https://f.test", "bookSourceName": "fonts", "ruleContent": {"content": "//div[@id='c']"}}
        """

    /// Private Use Area characters that only the page's font draws as letters.
    static let privateUse = String(String.UnicodeScalarView((0xE000...0xE01F).compactMap(Unicode.Scalar.init)))

    static let site = TestSite(html: [
        "https://f.test/pua.html": """
            <html><head><style>@font-face { font-family: "fz-shuffle"; src: url('/fonts/shuffle.woff2') format('woff2'); }
            .c { font-family: "fz-shuffle"; }</style></head>
            <body><div id="c" class="c"><p>\(privateUse)</p><p>\(privateUse)第二段</p></div></body></html>
            """,
        "https://f.test/pua-no-font.html": "<div id='c'><p>\(privateUse)</p></div>",
        "https://f.test/shuffled.html": """
            <html><head><style>
            /* the reading font */
            @font-face { font-family: read; src: url(https://f.test/read.woff2); }
            @media screen { #TextContent p:nth-last-of-type(2) { font-family: "read", serif !important; } }
            .icon { font-family: icons; }
            </style></head>
            <body><div id="c"><div id="TextContent"><p>他走进了房间，看见桌上放着一封信。</p><p>信上写着明天再来。</p><p>完</p></div></div></body></html>
            """,
        "https://f.test/inline.html": """
            <html><head><style>@font-face { font-family: 'secret'; src: url("/s.ttf"); }</style></head>
            <body><div id="c"><span style="font-family: secret">他走进了房间，看见桌上放着一封信。</span></div></body></html>
            """,
        "https://f.test/elsewhere.html": """
            <html><head><style>@font-face { font-family: logo; src: url(/logo.woff); } h1.logo { font-family: logo; }</style></head>
            <body><h1 class="logo">书站名称书站名称</h1><div id="c"><p>他走进了房间，看见桌上放着一封信。</p></div></body></html>
            """,
        "https://f.test/plain.html": "<div id='c'><p>他走进了房间，看见桌上放着一封信。</p></div>",
        "https://f.test/comments.html": """
            <html><head><style>\(String(repeating: "/**/ ", count: 200_000))
            @font-face { font-family: read; src: url(/read.woff2); } /* a comment
            .c { font-family: read; } */ #c { font-family: read; } /* unterminated
            </style></head>
            <body><div id="c"><p>他走进了房间，看见桌上放着一封信。</p></div></body></html>
            """,
    ])

    func warnings(_ page: String) async throws -> [String] {
        let engine = SourceEngine(source: try loadSource(Self.source), transport: Self.site)
        return try await engine.content(of: Chapter(index: 0, title: "", url: "https://f.test/\(page)")).warnings
    }

    @Test("a chapter of Private Use Area characters is warned, naming the page's @font-face font and its URL")
    func privateUseWarned() async throws {
        let warnings = try await warnings("pua.html")
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning.hasPrefix("ruleContent.content: "))
        #expect(warning.contains("Private Use Area"))
        #expect(warning.contains("\"fz-shuffle\" (/fonts/shuffle.woff2)"))
    }

    @Test("Private Use Area text on a page without a font is still warned")
    func privateUseWithoutFont() async throws {
        let warnings = try await warnings("pua-no-font.html")
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("only a web font the site loads can draw") == true)
    }

    @Test("ordinary characters drawn with an @font-face font on the content are warned, naming the font")
    func webFontOnContent() async throws {
        let warnings = try await warnings("shuffled.html")
        #expect(warnings == ["ruleContent.content: the chapter text is drawn with the web font \"read\" "
            + "(https://f.test/read.woff2) the page loads with @font-face; such fonts often show other letters than "
            + "the characters the page holds, so the text may be scrambled; it could not be decoded: "
            + "https://f.test/read.woff2 could not be fetched"])
        #expect(try await self.warnings("inline.html").first?.contains("\"secret\" (/s.ttf)") == true)
    }

    /// Text kept between the comments made the old search from the start quadratic.
    @Test("a style of 200,000 comments is read in one pass, and its @font-face font on the content is still warned", .tags(.realTime))
    func manyCommentsReadInOnePass() async throws {
        let start = ContinuousClock.now
        let warnings = try await warnings("comments.html")
        #expect(ContinuousClock.now - start < TestTime.bound(.seconds(10)))
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"read\" (/read.woff2)") == true)
    }

    @Test("CSS comments are dropped, an unterminated one to the end, and text around them is kept")
    func commentsDropped() {
        #expect(StyleSheet.withoutComments("a/* x */b/**/c/*/d*/e/* open") == "abce")
        #expect(StyleSheet.withoutComments("字/*注*/体 */") == "字体 */")
    }

    @Test("a web font used only outside the content, and a page without web fonts, give no warning")
    func noWarningWithoutFontOnContent() async throws {
        #expect(try await warnings("elsewhere.html") == [])
        #expect(try await warnings("plain.html") == [])
    }
}
