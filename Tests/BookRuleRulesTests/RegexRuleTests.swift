import Testing
@testable import BookRuleRules
import TestSupport

@Suite("## replacements, AllInOne and combinators")
struct RegexRuleTests {
    static let html = """
    <html><body>
    <h1>书名：凡人修仙传（精校版）</h1>
    <p class="a">作者：忘语</p><p class="b">状态：连载</p>
    <ul><li>x</li><li>y</li></ul><ol><li>1</li><li>2</li><li>3</li></ol>
    <span title="a && b">q</span><span title="c || d">r</span>
    </body></html>
    """

    @Test("rule##regex deletes every match")
    func delete() throws {
        #expect(try evaluate("//h1/text()##书名：|（.*?）", on: page(Self.html)) == ["凡人修仙传"])
    }

    @Test("rule##regex##replacement replaces every match with $n groups")
    func replace() throws {
        #expect(try evaluate("//p[@class='a']/text()##(.+)：(.+)##$2 ($1)", on: page(Self.html)) == ["忘语 (作者)"])
    }

    @Test("rule##regex##replacement### takes the first match only, \"\" when none")
    func firstOnly() throws {
        let document = try page(Self.html)
        #expect(try evaluate("//h1/text()##（(.*?)）##[$1]###", on: document) == ["[精校版]"])
        #expect(try evaluate("//h1/text()##nomatch##x###", on: document) == [""])
    }

    @Test("an empty rule part runs on the raw page text")
    func rawText() throws {
        #expect(try evaluate("##<p class=\"b\">状态：(.*?)</p>##$1###", on: page(Self.html)) == ["连载"])
    }

    @Test("&& concatenates, || takes the first non-empty, %% interleaves")
    func combinators() throws {
        let document = try page(Self.html)
        #expect(try evaluate("//ul/li/text()&&//ol/li/text()", on: document) == ["x", "y", "1", "2", "3"])
        #expect(try evaluate("//nothing/text()||//ul/li/text()", on: document) == ["x", "y"])
        #expect(try evaluate("//ol/li/text()%%//ul/li/text()", on: document) == ["1", "x", "2", "y", "3"])
    }

    @Test("combinators inside brackets and quotes are not split")
    func combinatorsInQuotes() throws {
        let document = try page(Self.html)
        #expect(try evaluate("//span[@title='a && b']/text()", on: document) == ["q"])
        #expect(try evaluate("//span[@title=\"c || d\"]/text()||//x", on: document) == ["r"])
        #expect(try evaluate("//span[contains(@title,'%%')]/text()%%//span[@title='a && b']/text()", on: document) == ["q"])
    }

    @Test("AllInOne list rule: each match is an element whose groups fields read as $n, also in URL templates")
    func allInOne() throws {
        let html = """
        <div><a href="/b/11.html">第一章</a><a href="/b/12.html">第二章</a></div>
        """
        let document = try page(html, url: "https://site.test/b/")
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let list = try RuleParser.parse(":href=\"/b/(\\d+)\\.html\">([^<]+)<", field: "ruleToc.chapterList", kind: .list)
        let items = try list.elements(in: .node(document.root), environment: environment)
        #expect(items.count == 2)
        let name = try RuleParser.parse("$2", field: "ruleToc.chapterName", kind: .groupField)
        let url = try RuleParser.parse("https://m.site.test/read/$1.html", field: "ruleToc.chapterUrl", kind: .groupField)
        #expect(try items.map { try name.string(in: $0, environment: environment) } == ["第一章", "第二章"])
        #expect(try url.string(in: items[1], environment: environment) == "https://m.site.test/read/12.html")
    }

    @Test("AllInOne regexes chained with && narrow the previous matches")
    func allInOneChain() throws {
        let html = "<ul id=a><li>1</li><li>2</li></ul><ul id=b><li>3</li></ul>"
        let document = try page(html)
        let list = try RuleParser.parse(":<ul id=b>.*?</ul>&&<li>(\\d)</li>", field: "l", kind: .list)
        let items = try list.elements(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
        #expect(items.map(\.rawText) == ["<li>3</li>"])
    }

    @Test("@put stores a value that @get reads, also inside an XPath")
    func putAndGet() throws {
        let document = try page("<div id='k'>b</div><p id='a'>A</p><p id='b'>B</p>")
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let put = try RuleParser.parse("@put:{\"which\":\"//div[@id='k']/text()\"}//div/text()", field: "f", kind: .string)
        #expect(try put.string(in: .node(document.root), environment: environment) == "b")
        #expect(environment.variables["which"] == "b")
        let get = try RuleParser.parse("//p[@id='@get:{which}']/text()", field: "g", kind: .string)
        #expect(try get.string(in: .node(document.root), environment: environment) == "B")
        let literal = try RuleParser.parse("@get:{which}-x", field: "h", kind: .string)
        #expect(try literal.string(in: .node(document.root), environment: environment) == "b-x")
    }

    @Test("{{rule}} embeds a sub-rule's result in text")
    func template() throws {
        let document = try page("<a href='/x/1.html'>1</a>", url: "https://site.test/")
        #expect(try evaluate("https://m.site.test{{//a/@href}}?p=1", on: document) == ["https://m.site.test/x/1.html?p=1"])
    }

    @Test("an invalid regex names the field, PCRE2's message and the offset")
    func invalidRegex() {
        do {
            _ = try RuleParser.parse("//h1/text()##第(.*章", field: "ruleBookInfo.name", kind: .string)
            Issue.record("expected an error")
        } catch {
            #expect(error.dialect == .regex)
            #expect(error.field == "ruleBookInfo.name")
            #expect(error.reason.contains("missing closing parenthesis"))
            #expect(error.reason == "invalid regex \"第(.*章\": missing closing parenthesis at offset 5")
        }
    }

    @Test("a catastrophic regex on a large chapter fails fast instead of hanging", .tags(.realTime))
    func catastrophicRegex() throws {
        let text = String(repeating: "a", count: 1_000_000) + "!"
        let document = try page("<div id='c'>\(text)</div>")
        let rule = try RuleParser.parse("//div[@id='c']/text()##(a+)+$", field: "ruleContent.content", kind: .string)
        var failed = false
        let elapsed = threadCPUTime {
            do {
                _ = try rule.strings(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
            } catch {
                failed = error is RuleError
            }
        }
        #expect(failed)
        #expect(elapsed < TestTime.bound(.seconds(10)))  // unbounded backtracking would run for hours
    }
}
