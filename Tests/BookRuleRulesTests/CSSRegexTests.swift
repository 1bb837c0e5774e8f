import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import TestSupport

/// jsoup's regular expressions in selectors (`[attr~=regex]`, `:matches(regex)`, `:matchesOwn(regex)`),
/// translated to the `br:match` XPath extension function (issue #32, item 3).
@Suite("CSS regular expressions select what jsoup selects")
struct CSSRegexTests {
    static let html = """
    <html><head><title n="t">T</title>
    <meta n="m1" property="og:novel:latest_chapter_name" content="第12章 重逢">
    <meta n="m2" property="og:novel:lastest_chapter_name" content="第12章">
    <meta n="m3" property="og:novel:latest_chapter_url" content="/c/12.html">
    </head><body n="body">
    <ul n="ul">
      <li n="li1"><a n="a1" href="/c/1.html">第1章 开始</a></li>
      <li n="li2"><a n="a2" href="/c/2.html" title="Ab">序章</a> 第2章</li>
      <li n="li3"><span n="s3">第 3 章</span></li>
    </ul>
    <p n="p1">Chapter  <b n="b1">Ten</b></p>
    <script n="js">var t = "第9章";</script>
    </body></html>
    """

    @Test("[attr~=regex] searches the attribute's value, case-sensitively as written", arguments: [
        SelectionCase("[property~=las?test_chapter_name]", ["m1", "m2"]),
        SelectionCase("meta[property~=las?test_chapter_(name|url)$]", ["m1", "m2", "m3"]),
        SelectionCase("[href~=/c/\\d+\\.html]", ["a1", "a2"]),
        SelectionCase("[href~=/C/\\d]", []),
        SelectionCase("[href~=(?i)/C/\\d]", ["a1", "a2"]),
        SelectionCase("[content~=^第\\d+章$]", ["m2"]),
        SelectionCase("[title~=^.*$]", ["a2"]),
        SelectionCase("li:has([href~=2\\.html$])", ["li2"]),
        SelectionCase("[href~=a.b]", []),
        SelectionCase("[href~=^/c/\\d]", ["a1", "a2"]),
    ])
    func attributeRegex(_ test: SelectionCase) throws {
        let xpath = try CSSTranslator.xpath(test.selector)
        #expect(try select(xpath, from: test.context) == test.expected, "\(xpath)")
    }

    @Test(":matches searches the element's text, :matchesOwn its own text (a script's is empty)", arguments: [
        SelectionCase("li:matches(第\\d+章)", ["li1", "li2"]),
        SelectionCase(":matches(第\\d+章)", ["<html>", "body", "ul", "li1", "a1", "li2"]),
        SelectionCase(":matchesOwn(第\\d+章)", ["a1", "li2"]),
        SelectionCase("li:matchesOwn(第\\d+章)", ["li2"]),
        SelectionCase("p:matches(^Chapter Ten$)", ["p1"]),
        SelectionCase("p:matchesOwn(^Chapter$)", ["p1"]),
        SelectionCase("p:matches(chapter)", []),
        SelectionCase("script:matchesOwn(^$)", ["js"]),
        SelectionCase("script:matches(第)", []),
        SelectionCase("li:not(:matches(\\d))", []),
        SelectionCase("span:matches(第\\s\\d\\s章)", ["s3"]),
    ])
    func textRegex(_ test: SelectionCase) throws {
        let xpath = try CSSTranslator.xpath(test.selector)
        #expect(try select(xpath, from: test.context) == test.expected, "\(xpath)")
    }

    @Test("in JSoup-segment rules too", arguments: [
        SelectionCase("tag.head@[property~=las?test_chapter_name]", ["m1", "m2"]),
        SelectionCase("tag.ul@li:matches(第\\d+章)", ["li1", "li2"]),
        SelectionCase("li:matchesOwn(第\\d章).0", ["li2"]),
        SelectionCase("@css:a[href~=\\d\\.html$]", ["a1", "a2"]),
    ])
    func segments(_ test: SelectionCase) throws {
        let translation = try JSoupRuleTranslator.translate(test.selector, isList: true)
        var found = try select(translation.xpath, from: test.context)
        if translation.reversed { found.reverse() }
        #expect(found == test.expected, "\(translation.xpath)")
    }

    @Test("literal alternatives keep their XPath 1.0 fast path; other patterns call br:match")
    func fastPath() throws {
        #expect(!(try CSSTranslator.xpath("[rel~=noopener|^#]")).contains("br:match"))
        #expect(!(try CSSTranslator.xpath("[href~=(?i)(?:\\.HTML$|^HTTPS)]")).contains("br:match"))
        #expect(try CSSTranslator.xpath("[property~=las?test]")
                == "descendant-or-self::*[@property and br:match(string(@property), 'las?test')]")
    }

    @Test("an invalid regex is a translation error with PCRE2's message and offset", arguments: [
        TranslationErrorCase("[href~=a(b]", #"CSS "[href~=a(b]" cannot be translated: jsoup reads "a(b" as a Java regular expression, and it does not compile: missing closing parenthesis at offset 3"#),
        TranslationErrorCase("li:matches(第[)", #"CSS ":matches(第[)" cannot be translated: jsoup reads "第[" as a Java regular expression, and it does not compile: missing terminating ] for character class at offset 2"#),
        TranslationErrorCase("li:matchesOwn()", #"CSS ":matchesOwn()" cannot be translated: :matchesOwn(regex) needs a regular expression"#),
    ])
    func invalid(_ test: TranslationErrorCase) {
        do {
            _ = try CSSTranslator.xpath(test.selector)
            Issue.record("translated")
        } catch {
            #expect(error.description == test.message)
        }
    }

    @Test("an invalid regex in a rule is a load-time error naming the field, the dialect and the pattern")
    func loadTimeError() throws {
        do {
            _ = try RuleParser.parse("tag.ul@li:matches(第\\d+章[)", field: "ruleToc.chapterList", kind: .list)
            Issue.record("parsed")
        } catch {
            #expect(error.field == "ruleToc.chapterList")
            #expect(error.dialect == .jsoup)
            #expect(error.description.contains("\"第\\d+章[\""), "\(error)")
            #expect(error.description.contains("missing terminating ] for character class at offset 6"), "\(error)")
        }
        do {
            _ = try RuleParser.parse("@css:meta[property~=las?test_chapter_name(]@content", field: "ruleBookInfo.lastChapter", kind: .string)
            Issue.record("parsed")
        } catch {
            #expect(error.field == "ruleBookInfo.lastChapter")
            #expect(error.dialect == .css)
            #expect(error.description.hasPrefix("ruleBookInfo.lastChapter (CSS)"), "\(error)")
        }
    }

    @Test("a rule's field reads the meta jsoup reads")
    func ruleValue() throws {
        let document = try page(Self.html)
        let rule = try RuleParser.parse("@css:[property~=las?test_chapter_name]@content", field: "ruleBookInfo.lastChapter", kind: .string)
        #expect(try rule.string(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL)) == "第12章 重逢\n第12章")
    }

    @Test("a pathological regex against a long attribute stops at the match limit, as a limit error", .tags(.realTime))
    func pathological() throws {
        let long = String(repeating: "a", count: 100_000) + "!"
        let document = try page("<html><body><p title=\"\(long)\">x</p></body></html>")
        let rule = try RuleParser.parse("@css:p[title~=(a+)+$]@text", field: "ruleContent.content", kind: .string)
        let clock = ContinuousClock()
        let start = clock.now
        do {
            _ = try rule.string(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
            Issue.record("the pattern finished")
        } catch {
            #expect(error.hitLimit, "\(error)")
            #expect(error.field == "ruleContent.content")
        }
        #expect(clock.now - start < .seconds(5))
    }

    @Test("the text :matches reads is jsoup's text(): blocks and <br> are spaces, pre keeps its whitespace")
    func jsoupText() throws {
        let html = """
        <html><body><div n="d"><p n="p">a</p><p>b</p>c</div><p n="q">x<br>y <!-- c --> z</p>
        <pre n="pre">a  b</pre><div n="s">t<script>var u = 1;</script><style>p {}</style></div></body></html>
        """
        func labels(_ selector: String) throws -> [String] {
            let document = try page(html)
            guard case .nodes(let nodes) = try XPathExpression(try CSSTranslator.xpath(selector)).evaluate(at: document.root)
            else { return [] }
            return nodes.compactMap { $0.attribute("n") }
        }
        #expect(try labels("div:matches(^a b c$)") == ["d"])
        #expect(try labels("p:matchesOwn(^x y z$)") == ["q"])
        #expect(try labels("p:matches(^x y z$)") == ["q"])
        #expect(try labels("pre:matches(a  b)") == ["pre"])
        #expect(try labels("div:matches(^t$)") == ["s"])
        #expect(try labels("div:matchesOwn(^$)") == [])
        #expect(try labels("div:matchesOwn(^c$)") == ["d"])
    }

    private func select(_ xpath: String, from context: String?) throws -> [String] {
        try labelsSelected(by: xpath, in: Self.html, from: context)
    }
}
