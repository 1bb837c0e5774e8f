import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import TestSupport

@Suite("XPath rules with JsoupXpath's context semantics")
struct XPathRuleTests {
    static let html = """
    <html><head><title>T</title></head><body>
    <div id="list"><dl>
      <dt>最新章节</dt>
      <dd><a href="/b/9.html">第九章</a></dd>
      <dt>正文</dt>
      <dd><a href="/b/1.html" title="one">第一章 <b>开始</b></a></dd>
      <dd><a href="/b/2.html">第二章&amp;续</a></dd>
      <dd><a href="3.html">第三章</a><span>VIP</span></dd>
    </dl></div>
    </body></html>
    """

    func items() throws -> (HTMLDocument, [RuleContext]) {
        let document = try page(Self.html, url: "https://site.test/b/index.html")
        let list = try RuleParser.parse("//dt[2]/following-sibling::dd", field: "ruleToc.chapterList", kind: .list)
        let items = try list.elements(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
        return (document, items)
    }

    func strings(_ rule: String, _ context: RuleContext, _ document: HTMLDocument) throws -> [String] {
        try RuleParser.parse(rule, field: "f", kind: .string)
            .strings(in: context, environment: RuleEnvironment(baseURL: document.baseURL))
    }

    @Test("a list rule selects elements in document order")
    func listOrder() throws {
        let (_, items) = try items()
        #expect(items.count == 3)
    }

    @Test("//a from a list element finds the element's descendants, not the whole page")
    func descendantFromElement() throws {
        let (document, items) = try items()
        #expect(try strings("//a/@href", items[0], document) == ["/b/1.html"])
        #expect(try strings("//a/@href", items[2], document) == ["3.html"])
    }

    @Test("//a from an <a> element matches the element itself")
    func descendantOrSelf() throws {
        let document = try page(Self.html)
        let links = try RuleParser.parse("//dd/a", field: "l", kind: .list)
            .elements(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
        #expect(links.count == 4)
        #expect(try strings("//a/@href", links[1], document) == ["/b/1.html"])
        #expect(try strings("//a/@title", links[1], document) == ["one"])
    }

    @Test("/a from a list element means its children")
    func childFromElement() throws {
        let (document, items) = try items()
        #expect(try strings("/a/@href", items[1], document) == ["/b/2.html"])
        #expect(try strings("/span/text()", items[2], document) == ["VIP"])
        #expect(try strings("/b", items[0], document) == [])
    }

    @Test("/html/... from the page works")
    func absoluteFromPage() throws {
        let document = try page(Self.html)
        #expect(try evaluate("/html/head/title/text()", on: document) == ["T"])
    }

    @Test("a positional first step keeps per-parent positions")
    func positionalFirstStep() throws {
        let document = try page(Self.html)
        #expect(try evaluate("//dd[2]/a/text()", on: document) == ["第一章 "])
        #expect(try evaluate("//dd[1]/a/text()", on: document) == ["第九章"])
    }

    @Test("element values are visible text with entities decoded; text() is own text")
    func elementText() throws {
        let (document, items) = try items()
        #expect(try strings("//a", items[0], document) == ["第一章 开始"])
        #expect(try strings("//a/text()", items[0], document) == ["第一章 "])
        #expect(try strings("//a", items[1], document) == ["第二章&续"])
    }

    @Test("JsoupXpath allText(), html() and outerHtml()")
    func jsoupXpathFunctions() throws {
        let (document, items) = try items()
        #expect(try strings("//a/allText()", items[0], document) == ["第一章 开始"])
        #expect(try strings("//a/html()", items[0], document) == ["第一章 <b>开始</b>"])
        #expect(try strings("/a/outerHtml()", items[1], document) == ["<a href=\"/b/2.html\">第二章&amp;续</a>"])
    }

    @Test("XPath functions giving strings and numbers")
    func nonNodeResults() throws {
        let document = try page(Self.html)
        #expect(try evaluate("@XPath:count(//dd)", on: document) == ["4"])
        #expect(try evaluate("@XPath:string(//dt[1])", on: document) == ["最新章节"])
    }

    @Test("a leading - reverses a list rule; + is ignored")
    func reverse() throws {
        let document = try page(Self.html)
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let reversed = try RuleParser.parse("-//dd/a", field: "l", kind: .list)
        let plain = try RuleParser.parse("+//dd/a", field: "l", kind: .list)
        let names = { (contexts: [RuleContext]) in contexts.map(\.rawText) }
        let forward = names(try plain.elements(in: .node(document.root), environment: environment))
        #expect(reversed.reversed && !plain.reversed)
        #expect(names(try reversed.elements(in: .node(document.root), environment: environment)) == forward.reversed())
        #expect(forward.count == 4)
    }

    @Test("an invalid XPath names the field, the dialect, libxml2's message and the offset")
    func invalidXPath() {
        do {
            _ = try RuleParser.parse("//div[@id='list'", field: "ruleToc.chapterList", kind: .list)
            Issue.record("expected an error")
        } catch {
            #expect(error.dialect == .xpath)
            #expect(error.description == "ruleToc.chapterList (XPath): invalid XPath \"//div[@id='list'\": Invalid predicate at offset 16")
        }
    }
}

@Suite("XPath 1.0 grammar at load")
struct XPathGrammarTests {
    @Test("operators before a parenthesis are operators, not calls of unknown functions", arguments: [
        "//td[@class='vcss' or (@class='ccss' and a)]", "//a[@x and (@y)]", "//li[position() mod (2) = 0]",
        "//li[(position() div (2)) > 1]", "//a[not(@href) or(@id)]",
    ])
    func operatorsBeforeParentheses(_ expression: String) throws {
        let document = try page("<table><tr><td class='vcss'>v</td><td class='ccss'><a>c</a></td><td class='ccss'>x</td></tr></table><ul><li>1</li><li>2</li><li>3</li><li>4</li></ul><a id='q'>q</a><a x='1' y='2'>xy</a>")
        let rule = try RuleParser.parse(expression, field: "ruleToc.chapterList", kind: .list)
        #expect(try !rule.elements(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL)).isEmpty)
    }

    @Test("a real unknown function is still reported at load, by name", arguments: ["//a[ends-with(@href, 'x')]", "//a[matches(., 'x')]"])
    func unknownFunctions(_ expression: String) {
        #expect {
            try RuleParser.parse(expression, field: "ruleToc.chapterList", kind: .list)
        } throws: { error in
            "\(error)".contains("is not an XPath 1.0 function")
        }
    }
}
