import Testing
@testable import BookRuleRules
import TestSupport

@Suite("Dialect detection, in Legado's order")
struct RuleDialectTests {
    @Test("every prefix in rules.md", arguments: [
        ("@CSS:div.list > a@href", RuleKind.string, RuleDialect.css),
        ("@css:div > a@text", .string, .css),
        ("@@class.list@tag.a@href", .string, .jsoup),
        ("@XPath://div/a/@href", .string, .xpath),
        ("@xpath:/a/text()", .string, .xpath),
        ("@Json:$.data.list", .string, .jsonPath),
        ("$.data.list[*]", .list, .jsonPath),
        ("$[0].name", .string, .jsonPath),
        ("//div[@id='list']/dd/a", .list, .xpath),
        ("/html/body", .string, .xpath),
        (":<a href=\"(.*?)\">(.*?)</a>", .list, .allInOne),
        ("@js:result.trim()", .string, .javaScript),
        ("<js>result</js>", .string, .javaScript),
        ("class.list@tag.a", .list, .jsoup),
        ("text", .string, .jsoup),
    ])
    func detects(rule: String, kind: RuleKind, dialect: RuleDialect) {
        #expect(RuleParser.dialect(of: rule, kind: kind) == dialect)
    }

    @Test("a leading colon is AllInOne only for list rules")
    func colonOnlyForLists() {
        #expect(RuleParser.dialect(of: ":abc", kind: .list) == .allInOne)
        #expect(RuleParser.dialect(of: ":abc", kind: .string) == .jsoup)
    }

    @Test("XPath wins over AllInOne because it is checked first")
    func order() {
        #expect(RuleParser.dialect(of: "@XPath::x", kind: .list) == .xpath)
    }

    @Test("JavaScript is split out of a rule wherever it stands, leaving the rule before it in its own dialect", arguments: [
        ("@js:java.ajax(baseUrl)", ["java.ajax(baseUrl)"]),
        // Legado splits @js: out of a rule wherever it is: a JSONPath or JSoup rule followed by JavaScript.
        ("$.v@js:result.replace(/0!/, '')", ["result.replace(/0!/, '')"]),
        ("tag.a@JS:result.trim()", ["result.trim()"]),
    ])
    func javaScriptSplit(rule: String, scripts: [String]) throws {
        let parsed = try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list)
        #expect(parsed.dialect == .javaScript)
        #expect(parsed.scripts.map(\.code) == scripts)
    }

    @Test("CSS and JSoup-segment rules run as XPath translations")
    func translatedDialects() throws {
        let document = try page("<div id='list'><dl><dd><a href='/1.html'>一</a></dd><dd><a href='/2.html'>二</a></dd></dl></div>")
        let environment = RuleEnvironment(baseURL: document.baseURL)
        for rule in ["id.list@tag.dd@tag.a", "@css:#list dd > a", "@@id.list@tag.a"] {
            let list = try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list)
            let items = try list.elements(in: .node(document.root), environment: environment)
            #expect(items.count == 2, "\(rule)")
            let name = try RuleParser.parse("text", field: "ruleToc.chapterName", kind: .string)
            let url = try RuleParser.parse("href", field: "ruleToc.chapterUrl", kind: .string)
            #expect(try items.map { try name.string(in: $0, environment: environment) } == ["一", "二"])
            #expect(try items.map { try url.string(in: $0, environment: environment) } == ["/1.html", "/2.html"])
        }
        #expect(try evaluate("@css:dd:last-child a@href", on: document) == ["/2.html"])
        #expect(try evaluate("tag.a.-1@text", on: document) == ["二"])
    }

    @Test("JavaScript inside {{…}} of a string rule is kept as a template snippet")
    func embeddedJavaScript() throws {
        let rule = try RuleParser.parse("https://x.test/{{result.replace('a','b')}}", field: "ruleSearch.bookUrl", kind: .string)
        #expect(rule.scripts == [ScriptSnippet(code: "result.replace('a','b')", field: "ruleSearch.bookUrl", placement: .template)])
    }
}

@Suite("JSoup extractors")
struct JSoupExtractorTests {
    static let html = """
    <html><body><div id="c" class="content">  第一段 <b>粗</b><br>第二段<script>ad()</script><style>p{}</style>
    <p>第三段</p></div><a href="/x.html" title=" ">x</a><a href="/x.html">y</a><a href="/z.html">z</a></body></html>
    """

    @Test("text, ownText, textNodes, html, all and attributes give what Legado's JSoup analyzer gives", arguments: [
        ("id.c@text", ["第一段 粗 第二段 第三段"]),
        ("id.c@ownText", ["第一段 第二段"]),
        ("id.c@textNodes", ["第一段\n第二段"]),
        ("tag.a@href", ["/x.html", "/z.html"]),
        ("tag.a@title", []),
        ("tag.a.1@text", ["y"]),
        ("tag.a!0@text", ["y", "z"]),
    ])
    func extractors(rule: String, expected: [String]) throws {
        #expect(try evaluate(rule, on: page(Self.html)) == expected)
    }

    @Test("html drops scripts and styles; all keeps them; both give one value for all elements")
    func markup() throws {
        let document = try page(Self.html)
        let html = try evaluate("id.c@html", on: document)
        #expect(html.count == 1)
        #expect(html.first?.contains("第三段") == true)
        #expect(html.first?.contains("ad()") == false && html.first?.contains("p{}") == false)
        #expect(try evaluate("id.c@all", on: document).first?.contains("<script>ad()</script>") == true)
        #expect(try evaluate("tag.a@all", on: document).first?.components(separatedBy: "\n").count == 3)
    }
}
