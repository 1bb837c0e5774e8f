import BookRuleDocument
import BookRuleRules
import BookRuleScript
import Foundation
import Testing

/// The saved biquge5200 book page in the shared corpus (45 chapters in `#list dd a`, title 氪金魔主).
private let pagePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
    .appendingPathComponent("../shared/corpus/pages/bosslsk_hmqf_crawler_hy/tests/parser/data/biquge/book_detail.html")
    .standardized.path

@Suite("Script: the org.jsoup.Jsoup object model",
       .enabled(if: FileManager.default.fileExists(atPath: pagePath), "the shared corpus page is absent"))
struct ScriptJsoupTests {
    let runtime: ScriptRuntime
    let page: HTMLDocument

    init() throws {
        runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: pagePath)))
        page = try HTMLDocument(bytes: bytes, url: "http://www.biquge5200.com/86_86306/")
    }

    private func run(_ code: String) throws -> String {
        try runtime.text(code, result: .text(page.sourceText), context: .node(page.root),
                         bindings: ScriptBindings(baseURL: page.url))
    }

    @Test("parse, select, size, get, text, attr, first, last on a real page")
    func selection() throws {
        #expect(try run("var doc = org.jsoup.Jsoup.parse(result); doc.select('#list dd a').size()") == "45")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('#list dd a').get(0).text()") == "第三十六章 乌龙")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('#list dd a').first().attr('href')")
            == "http://www.biquge5200.com/86_86306/151212529.html")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('h1').text()") == "氪金魔主")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('#list dd a').last().text().length > 0") == "true")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('#list dd a')[44].text() === org.jsoup.Jsoup.parse(result).select('#list dd a').last().text()") == "true")
        #expect(try run("org.jsoup.Jsoup.parse(result).select('#list dd a').map(a => a.text()).length") == "45")
    }

    @Test("element navigation: children, parent, tagName, id, hasClass, getElementsByTag/Class, html, outerHtml, ownText")
    func navigation() throws {
        let doc = "var doc = org.jsoup.Jsoup.parse('<div id=\"m\" class=\"Box big\"><p>one <b>two</b> three</p><p>4</p></div>');"
        #expect(try runtime.text(doc + "var m = doc.select('#m').first(); m.children().size() + m.tagName() + m.id()") == "2divm")
        #expect(try runtime.text(doc + "doc.select('b').first().parent().ownText()") == "one three")
        #expect(try runtime.text(doc + "doc.select('#m').first().hasClass('box') + ',' + doc.select('#m').hasClass('nope')") == "true,false")
        #expect(try runtime.text(doc + "doc.getElementsByTag('p').size() + ',' + doc.getElementsByClass('big').size()") == "2,1")
        #expect(try runtime.text(doc + "doc.select('p').first().html()") == "one <b>two</b> three")
        #expect(try runtime.text(doc + "doc.select('b').outerHtml()") == "<b>two</b>")
        #expect(try runtime.text(doc + "doc.select('p').text()") == "one two three 4")
        #expect(try runtime.text(doc + "doc.getElementById('m').select('p').eq(1).text()") == "4")
    }

    @Test("remove() changes a parsed document; the rule's page is refused")
    func removal() throws {
        #expect(try run("var doc = org.jsoup.Jsoup.parse(result); doc.select('#list dd').remove(); doc.select('#list dd a').size() + ':' + doc.select('h1').text()") == "0:氪金魔主")
        #expect(try run("var doc = org.jsoup.Jsoup.parse('<p>a<script>x()</script></p>'); doc.select('script').remove(); doc.select('p').html()") == "a")
        #expect(throws: ScriptError.self) { try run("java.getElements('#list dd').remove()") }
    }

    @Test("elements returned by a snippet are items further rules run in")
    func returnedElements() throws {
        let value = try runtime.run("org.jsoup.Jsoup.parse(result).select('#list dd a')", result: .text(page.sourceText))
        guard case .items(let items) = value, items.count == 45 else {
            Issue.record("expected 45 items, got \(value.summary)")
            return
        }
        let rule = try RuleParser.parse("@@text", field: "ruleToc.chapterName", kind: .string)
        #expect(try rule.string(in: items[0], environment: RuleEnvironment(baseURL: page.url)) == "第三十六章 乌龙")
        // A list element handed to a snippet is a one-element Elements, usable as an element too.
        let element = RuleValue.items([items[1]])
        #expect(try runtime.text("result.text() + '|' + result.attr('href') + '|' + result.size()", result: element)
            == "第三十五章 来点刺激的|http://www.biquge5200.com/86_86306/151197975.html|1")
    }
}
