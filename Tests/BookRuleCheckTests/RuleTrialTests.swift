import Foundation
import Testing
import BookRuleCheck
import BookRuleDocument
import BookRuleJSON
import BookRuleRules
import TestSupport

/// `bookrule try`'s library half on real saved pages of the shared corpus.
@Suite("RuleTrial: one rule on a real page", .enabled(if: Corpus.isAvailable, "the shared corpus is not beside this checkout"))
struct RuleTrialTests {
    static func page(_ path: String, url: String) throws -> HTMLDocument {
        let bytes = try LocalFile.read(Corpus.root + "/pages/" + path)
        return try HTMLDocument(bytes: bytes, url: url)
    }

    @Test("GBK page: an XPath rule's nodes come with short paths and its hrefs are decoded text")
    func gbkXPath() throws {
        let document = try Self.page("0987363_book-downloader/biquge.html", url: "https://www.biquge.com.tw/17_17275/")
        #expect(document.charset.charset == "GB18030")
        let result = try RuleTrial(rule: "//div[@id='list']/dl/dd/a").run(on: document)
        #expect(result.rule.dialect == "XPath")
        #expect(result.matchCount == 821 && result.matches?.count == 50, "the default limit lists 50, all are counted")
        #expect(result.matches?[2].path == "div#list > dl > dd:nth-child(3) > a")
        #expect(result.matches?[0].snippet.hasPrefix("<a href=\"/17_17275/7633255.html\">第一章 穿越") == true)
        #expect(result.values.first == "第一章 穿越（新书求支持，求推荐！求收藏！）")
        #expect(result.page.charset.contains("GB18030"))
    }

    @Test("a JSoup rule shows the XPath it runs as; --list runs the field in each element as a TOC does")
    func jsoupWithList() throws {
        let document = try Self.page("0987363_book-downloader/biquge.html", url: "https://www.biquge.com.tw/17_17275/")
        let result = try RuleTrial(rule: "href", listRule: "id.list@dl@dd@a", elementLimit: 5).run(on: document)
        #expect(result.list?.dialect == "JSoup")
        #expect(result.list?.translations.first?.contains("@id='list'") == true)
        #expect(result.listCount == 821)
        #expect(result.elements?.count == 5)
        #expect(result.elements?[0].path == "div#list > dl > dd:nth-child(1) > a")
        #expect(result.elements?[0].values == ["https://www.biquge.com.tw/17_17275/7633255.html"], "an href resolves against the page")
        #expect(result.valueCount == 821 && result.values.count == 5)
        #expect(result.warnings.isEmpty)
    }

    @Test("text() under a list is read as JSoup and matches nothing: the trial says so, with the XPath spelling")
    func misreadTextRule() throws {
        let document = try Self.page("0987363_book-downloader/biquge.html", url: "https://www.biquge.com.tw/17_17275/")
        let result = try RuleTrial(rule: "text()", listRule: "id.list@dl@dd@a").run(on: document)
        #expect(result.rule.dialect == "JSoup")
        #expect(result.values.allSatisfy { $0.isEmpty })
        #expect(result.warnings.contains { $0.contains("\"text()\" is read as a JSoup rule") })
        #expect(result.warnings.contains { $0.contains("gave nothing in any of the 821 list element(s)") })
    }

    @Test("entity-encoded attributes come out decoded, once")
    func entities() throws {
        let document = try Self.page("dteviot_WebToEpub/scripts/debug_out.html", url: "https://www.royalroad.com/fictions/search?title=the")
        let result = try RuleTrial(rule: "//option/@data-description").run(on: document)
        #expect(result.values.contains { $0.hasPrefix("The main character's home world") })
        #expect(!result.values.contains { $0.contains("&#x27;") })
        #expect(result.matches?.first?.path.hasSuffix(" @data-description") == true)
    }

    @Test("a content rule's markup is cleaned as the engine cleans it: &nbsp; indents and <br> become paragraphs")
    func contentCleaning() throws {
        let document = try Self.page("0987363_book-downloader/7633258.html", url: "https://www.biquge.com.tw/17_17275/7633258.html")
        let result = try RuleTrial(rule: "id.content@html").run(on: document)
        let text = try #require(result.values.first)
        #expect(text.contains("【所有轮回者确认！开始本次任务！】"))
        #expect(!text.contains("&nbsp;") && !text.contains("<br"))
    }

    @Test("the Cloudflare page is named in the warnings")
    func antiBot() throws {
        let document = try Self.page("dteviot_WebToEpub/scratch/novelhall.html", url: "https://www.novelhall.com/x/")
        let result = try RuleTrial(rule: "//div[@class='book-catalog']//a/@href").run(on: document, status: 403)
        #expect(result.values.isEmpty)
        #expect(result.warnings.contains { $0.contains("anti-bot challenge page") })
        #expect(result.warnings.contains("the page answered HTTP 403"))
    }

    @Test("a rule that does not compile throws its error")
    func badRule() throws {
        let document = try HTMLDocument(bytes: Array("<p>x</p>".utf8), url: "https://x.test/")
        #expect(throws: RuleError.self) { try RuleTrial(rule: "//p[").run(on: document) }
    }
}
