import Testing
@testable import BookRuleEngine
import TestSupport

@Suite("Pictures in text chapters: kept as image lines by the content step")
struct ContentPicturesTests {
    static func source(content: String, type: Int = 0) throws -> BookSource {
        try loadSource("""
            {"bookSourceUrl": "https://p.test", "bookSourceName": "pictures", "bookSourceType": \(type),
             "ruleContent": {\(content)}}
            """)
    }

    static let site = TestSite(html: [
        "https://p.test/c/1.html": """
            <html><head><title>第一章</title></head><body><h1>第一章 <img src="/t.png"></h1>
            <div id="c"><p>第一段</p><p><img data-src="/pic/1.jpg" src="/loading.gif"></p><p>广告</p><p>第二段</p></div></body></html>
            """,
        "https://p.test/c/2.html": "<div id='c'><img src='//cdn.p.test/2.png'><img src='3.png'></div>",
        "https://p.test/c/3.html": "<div id='c'><img src='data:image/gif;base64,R0lGOD'> </div>",
    ])

    @Test("an element rule and an @html rule keep the picture, resolved; the title rule does not")
    func keptInText() async throws {
        for rule in [#""content": "//div[@id='c']""#, #""content": "id.c@html""#, ##""content": "#c@html""##] {
            let source = try Self.source(content: rule + #", "title": "//h1""#)
            let content = try await SourceEngine(source: source, transport: Self.site)
                .content(of: Chapter(index: 0, title: "", url: "https://p.test/c/1.html"))
            #expect(content.text == "第一段\n<img src=\"https://p.test/pic/1.jpg\">\n广告\n第二段", "\(rule)")
            #expect(content.title == "第一章")
            #expect(content.imageURLs == ["https://p.test/pic/1.jpg"])
        }
    }

    @Test("replaceRegex sees the image lines, as in Legado: it can drop them or leave them")
    func replaceRegexSeesImages() async throws {
        let source = try Self.source(content: ###""content": "//div[@id='c']", "replaceRegex": "##广告|<img[^>]*>""###)
        let content = try await SourceEngine(source: source, transport: Self.site)
            .content(of: Chapter(index: 0, title: "", url: "https://p.test/c/1.html"))
        #expect(content.text == "第一段\n第二段")
    }

    @Test("a chapter of pictures only has content; one with neither text nor pictures is still empty")
    func pictureOnlyChapter() async throws {
        let engine = SourceEngine(source: try Self.source(content: #""content": "//div[@id='c']""#), transport: Self.site)
        let pictures = try await engine.content(of: Chapter(index: 1, title: "", url: "https://p.test/c/2.html"))
        #expect(pictures.emptyReason == nil)
        #expect(pictures.imageURLs == ["https://cdn.p.test/2.png", "https://p.test/c/3.png"])
        let nothing = try await engine.content(of: Chapter(index: 2, title: "", url: "https://p.test/c/3.html"))
        #expect(nothing.text.isEmpty)
        #expect(nothing.emptyReason == "ruleContent.content found no text on https://p.test/c/3.html")
    }

    @Test("an image source keeps its pictures as media links, not image lines")
    func imageSourceUnchanged() async throws {
        let engine = SourceEngine(source: try Self.source(content: ##""content": "#c@html""##, type: 2), transport: Self.site)
        let content = try await engine.content(of: Chapter(index: 1, title: "", url: "https://p.test/c/2.html"))
        #expect(content.text.isEmpty)
        #expect(content.mediaURLs == ["https://cdn.p.test/2.png", "https://p.test/c/3.png"])
    }
}
