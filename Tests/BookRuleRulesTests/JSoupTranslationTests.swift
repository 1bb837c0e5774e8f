import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleRules
import TestSupport

/// A selector or rule, where it runs from (an element's `n` label, or nil for the page), and what it selects.
struct SelectionCase: Sendable, CustomTestStringConvertible {
    let selector: String
    let context: String?
    let expected: [String]

    init(_ selector: String, from context: String? = nil, _ expected: [String]) {
        self.selector = selector
        self.context = context
        self.expected = expected
    }

    var testDescription: String { "\(selector) from \(context ?? "the page")" }
}

/// A selector or rule and the exact error it gives.
struct TranslationErrorCase: Sendable, CustomTestStringConvertible {
    let selector: String
    let message: String

    init(_ selector: String, _ message: String) {
        self.selector = selector
        self.message = message
    }

    var testDescription: String { selector }
}

@Suite("CSS and JSoup-segment rules translate to XPath that selects what jsoup selects")
struct JSoupTranslationTests {
    static let html = """
    <html><head><title>T</title></head><body>
    <div id="list" class="Box main" n="box">
      <h3 n="h">Title <b n="hb">Bold</b></h3>
      <p n="p1" class="intro">First para</p>
      <p n="p2" class="intro  Extra" title=" Ab ">Second <a n="a1" href="/book/1.html">下一页</a> tail</p>
      <ul n="ul">
        <li n="li1" class="item"><a n="a2" href="/c/1.HTML" lang="en-US">Chapter 1</a></li>
        <li n="li2" class="item active"><a n="a3" href="/c/2.html" rel="nofollow noopener">Chapter 2</a></li>
        <li n="li3"><a n="a4" href="https://x.test/c/3">Chapter 3</a><span n="s1"></span></li>
        <li n="li4" class="ITEM"><a n="a5" href="#top" data-x="10">Next  page</a></li>
        <li n="li5"><span n="s2">vip</span></li>
      </ul>
    </div>
    <div n="d2" class="item"><div n="d3"><a n="a6" href="/x">x</a></div></div>
    <script n="js">var x = "下一页";</script>
    </body></html>
    """

    static let allLinks = ["a1", "a2", "a3", "a4", "a5", "a6"]
    static let items = ["li1", "li2", "li3", "li4", "li5"]

    // MARK: CSS

    @Test("type, universal, id and class selectors", arguments: [
        SelectionCase("li", items),
        SelectionCase("LI", items),
        SelectionCase("*", from: "li3", ["li3", "a4", "s1"]),
        SelectionCase("#list", ["box"]),
        SelectionCase("#LIST", []),
        SelectionCase(".item", ["li1", "li2", "li4", "d2"]),
        SelectionCase(".box", ["box"]),
        SelectionCase(".intro.extra", ["p2"]),
        SelectionCase("li.item.active", ["li2"]),
        SelectionCase("p.intro", from: "p1", ["p1"]),
        SelectionCase("*.item", from: "ul", ["li1", "li2", "li4"]),
    ])
    func simpleSelectors(_ test: SelectionCase) throws {
        try expectCSS(test)
    }

    @Test("attribute operators, compared as jsoup does (names and values ignoring case, = trims)", arguments: [
        SelectionCase("[href]", allLinks),
        SelectionCase("[HREF]", allLinks),
        SelectionCase("[title=ab]", ["p2"]),
        SelectionCase("[title=' ab ']", ["p2"]),
        SelectionCase("[href=/x]", ["a6"]),
        SelectionCase("[href^=/c/]", ["a2", "a3"]),
        SelectionCase("[href$=.html]", ["a1", "a2", "a3"]),
        SelectionCase("[href*=X.TEST]", ["a4"]),
        SelectionCase("a[lang!=EN-us]", ["a1", "a3", "a4", "a5", "a6"]),
        SelectionCase("[^data-]", ["a5"]),
        // jsoup's [attr~=regex]: literal text, anchors and (?i) translate.
        SelectionCase("[rel~=noopener]", ["a3"]),
        SelectionCase("[href~=^/c/]", ["a2", "a3"]),
        SelectionCase("[href~=html$]", ["a1", "a3"]),
        SelectionCase("[href~=(?i)html$]", ["a1", "a2", "a3"]),
        SelectionCase("[href~=x\\.test]", ["a4"]),
        SelectionCase("[data-x~=^10$]", ["a5"]),
        SelectionCase("[href~=noopener|^#]", ["a5"]),
        SelectionCase("[rel~=noopener|^#]", ["a3"]),
        SelectionCase("[href~=^(/x|#top)$]", ["a5", "a6"]),
        SelectionCase("[href~=(?i)(?:\\.HTML$|^HTTPS)]", ["a1", "a2", "a3", "a4"]),
        // Any other pattern runs on PCRE2 through br:match (issue #32, item 3).
        SelectionCase("[href~=^/c/\\d]", ["a2", "a3"]),
        SelectionCase("[href~=a.b]", []),
        SelectionCase("[href~=(?=x)]", ["a4", "a6"]),
        SelectionCase("li:matches(\\d+)", ["li1", "li2", "li3"]),
    ])
    func attributes(_ test: SelectionCase) throws {
        try expectCSS(test)
    }

    @Test("combinators and selector lists, never looking above the context", arguments: [
        SelectionCase("div a", allLinks),
        SelectionCase("div a", from: "li1", []),
        SelectionCase("div a", from: "d2", ["a6"]),
        SelectionCase("div a", from: "d3", ["a6"]),
        SelectionCase("div > a", ["a6"]),
        SelectionCase("div > a", from: "d3", ["a6"]),
        SelectionCase("div > div > a", from: "d3", []),
        SelectionCase("li > a", items.indices.dropLast().map { "a\($0 + 2)" }),
        SelectionCase("ul li span", ["s1", "s2"]),
        SelectionCase("h3 + p", ["p1"]),
        SelectionCase("p + p", ["p2"]),
        SelectionCase("p ~ ul", ["ul"]),
        SelectionCase("li ~ li", ["li2", "li3", "li4", "li5"]),
        SelectionCase("li ~ li", from: "li3", []),
        SelectionCase("li + li", from: "ul", ["li2", "li3", "li4", "li5"]),
        SelectionCase("a, b", ["hb", "a1", "a2", "a3", "a4", "a5", "a6"]),
        SelectionCase("h3, p + ul", ["h", "ul"]),
        SelectionCase("> li", from: "ul", items),
        SelectionCase("> *", from: "li3", ["a4", "s1"]),
        SelectionCase("> a", []),
    ])
    func combinators(_ test: SelectionCase) throws {
        try expectCSS(test)
    }

    @Test("structural pseudo-classes", arguments: [
        SelectionCase("li:first-child", ["li1"]),
        SelectionCase("li:last-child", ["li5"]),
        SelectionCase("li:nth-child(2n+1)", ["li1", "li3", "li5"]),
        SelectionCase("li:nth-child(odd)", ["li1", "li3", "li5"]),
        SelectionCase("li:nth-child(even)", ["li2", "li4"]),
        SelectionCase("li:nth-child(3)", ["li3"]),
        SelectionCase("li:nth-child(-1n+2)", ["li1", "li2"]),
        // jsoup reads a bare -n as n (kept, since Legado's jsoup does the same).
        SelectionCase("li:nth-child(-n+2)", ["li2", "li3", "li4", "li5"]),
        SelectionCase("li:nth-last-child(2)", ["li4"]),
        SelectionCase("p:nth-of-type(2)", ["p2"]),
        SelectionCase("p:first-of-type", ["p1"]),
        SelectionCase("p:last-of-type", ["p2"]),
        SelectionCase("li:nth-last-of-type(1)", ["li5"]),
        SelectionCase("a:only-child", ["a1", "a2", "a3", "a5", "a6"]),
        SelectionCase("span:only-of-type", ["s1", "s2"]),
        SelectionCase("span:empty", ["s1"]),
        SelectionCase("html:first-child", []),
        SelectionCase("li:eq(0)", ["li1"]),
        SelectionCase("li:gt(2)", ["li4", "li5"]),
        SelectionCase("li:lt(2)", ["li1", "li2"]),
        SelectionCase("li:lt(2)", from: "li1", []),
        SelectionCase(":root > body", ["<body>"]),
        SelectionCase(":root", from: "ul", ["ul"]),
        SelectionCase(":root > li", from: "ul", items),
    ])
    func structural(_ test: SelectionCase) throws {
        try expectCSS(test)
    }

    @Test(":not, :is, :has and :contains", arguments: [
        SelectionCase("li:not(.item)", ["li3", "li5"]),
        SelectionCase("li:not(:first-child, :last-child)", ["li2", "li3", "li4"]),
        SelectionCase("p:not(h3 + p)", ["p2"]),
        SelectionCase("li:not(li + li)", ["li1"]),
        SelectionCase("a:not(li > a)", ["a1", "a6"]),
        SelectionCase("li:not(li + li)", from: "li3", ["li3"]),
        SelectionCase("li:is(.active, :last-child)", ["li2", "li5"]),
        SelectionCase("li:has(span)", ["li3", "li5"]),
        SelectionCase("div:has(> a)", ["d3"]),
        SelectionCase("div:has(div a)", ["box", "d2", "d3"]),
        SelectionCase("ul:has(> li.active)", ["ul"]),
        SelectionCase("li:has(a[href$=.html])", ["li1", "li2"]),
        SelectionCase("li:contains(chapter 2)", ["li2"]),
        SelectionCase("p:contains(second 下一页)", ["p2"]),
        SelectionCase("a:contains(next page)", ["a5"]),
        SelectionCase(":containsOwn(next page)", ["a5"]),
        SelectionCase("p:containsOwn(second tail)", ["p2"]),
        SelectionCase("p:containsOwn(下一页)", []),
    ])
    func logical(_ test: SelectionCase) throws {
        try expectCSS(test)
    }

    @Test("untranslatable CSS is a precise error naming the piece", arguments: [
        TranslationErrorCase("a:hover", #"CSS ":hover" cannot be translated: dynamic pseudo-classes don't apply to a saved page"#),
        TranslationErrorCase("p::before", #"CSS "::before" cannot be translated: pseudo-elements select no elements"#),
        TranslationErrorCase("[lang|=en]", #"CSS "[lang|=en]" cannot be translated: jsoup has no |= operator: it reads an attribute named "lang|", so the selector matches nothing in Legado"#),
        TranslationErrorCase("[*]", #"CSS "[*]" cannot be translated: jsoup before 1.17 (Legado ships 1.16) looks for an attribute literally named "*", so it matches nothing"#),
        TranslationErrorCase("p:matchesWholeText(x)", #"CSS ":matchesWholeText(…)" cannot be translated: bookrule translates :matches and :matchesOwn, not this jsoup extension"#),
        TranslationErrorCase(".intro:nth-of-type(2)", #"CSS ":nth-of-type(2)" cannot be translated: XPath 1.0 cannot compare an element's name with its siblings' names; put the element name before it (li:nth-of-type(2))"#),
        TranslationErrorCase("div:not(div a)", #"CSS "div a" cannot be translated: a descendant combinator here would have to stop at the context element, which an XPath 1.0 predicate cannot see"#),
        TranslationErrorCase("a:not(ul > li > a)", #"CSS "ul > li > a" cannot be translated: here XPath 1.0 can only follow '>' one level up (the parent may be the context element, where jsoup stops)"#),
        TranslationErrorCase("+ li", #"CSS "+ li" cannot be translated: a selector starting with '+' or '~' asks for the context element's own siblings, which jsoup never selects (they are outside it)"#),
        TranslationErrorCase("li:nth-child(2n + 1)", #"CSS ":nth-child(2n + 1)" cannot be translated: jsoup cannot read the index "2n + 1" (write it like 2n+1, -n+3, odd or 4, without spaces)"#),
        TranslationErrorCase("li:bogus", #"CSS ":bogus" cannot be translated: jsoup does not know this pseudo-class"#),
        TranslationErrorCase("div >", #"CSS "div >" cannot be translated: a selector is missing after '>'"#),
        TranslationErrorCase("div > > a", #"CSS "div > >" cannot be translated: two combinators in a row"#),
        TranslationErrorCase(">", #"CSS ">" cannot be translated: a selector is missing at the end"#),
        TranslationErrorCase("a,", #"CSS "a," cannot be translated: a selector is missing after the last ','"#),
        TranslationErrorCase("", #"CSS "" cannot be translated: the selector is empty"#),
        TranslationErrorCase("a[href", #"CSS "[href" cannot be translated: '[' is not closed"#),
        TranslationErrorCase("[ href ]", #"CSS "[ href ]" cannot be translated: jsoup keeps the spaces around the attribute name, so it never matches; write [href]"#),
        TranslationErrorCase("a:containsData(x)", #"CSS ":containsData" cannot be translated: bookrule translates :contains and :containsOwn, not this jsoup extension"#),
    ])
    func cssErrors(_ test: TranslationErrorCase) {
        #expect(throws: CSSTranslationError.self) { try CSSTranslator.xpath(test.selector) }
        do {
            _ = try CSSTranslator.xpath(test.selector)
        } catch {
            #expect(error.description == test.message)
        }
    }

    // Found by fuzzing (Tests/BookRuleFuzzTests/FuzzRegressions/css): libxml2 stops reading XPath at a NUL.
    @Test("a NUL in a selector or rule is a translation error, not XPath libxml2 would cut short")
    func nul() {
        #expect(throws: CSSTranslationError.self) { try CSSTranslator.xpath("div.x\u{0}y > a") }
        #expect(throws: CSSTranslationError.self) { try JSoupRuleTranslator.translate("class.x\u{0}y@html", isList: false) }
        #expect(throws: CSSTranslationError.self) { try JSoupRuleTranslator.translate("@css:a\u{0}", isList: true) }
    }

    // Found by fuzzing (FuzzRegressions/css/jsoup-text-with-control-characters): libxml2 ends a literal at U+0001.
    @Test("a control character in a selector or rule is a translation error naming it; tab and newline are not")
    func controlCharacters() throws {
        do {
            _ = try JSoupRuleTranslator.translate("text.开完整\u{1}\u{2}a@href", isList: false)
            Issue.record("a control character translated")
        } catch {
            #expect(error.description.contains("the control character U+0001 cannot be translated to XPath"))
        }
        #expect(throws: CSSTranslationError.self) { try CSSTranslator.xpath("a[title='x\u{1F}']") }
        #expect(throws: CSSTranslationError.self) { try CSSTranslator.xpath("a:contains(\u{FFFE})") }
        _ = try CSSTranslator.xpath("div\t>\na")
    }

    // Found by fuzzing (FuzzRegressions/css/css-non-ascii-tag-name): libxml2 rejected `descendant-or-self::ٯ`.
    @Test("a tag or attribute name outside ASCII is matched by name(), which libxml2 always compiles")
    func nonASCIINames() throws {
        #expect(try CSSTranslator.xpath("ٯ") == "descendant-or-self::*[name()='ٯ']")
        _ = try XPathExpression(try CSSTranslator.xpath("章节[标题=x] > ٯ"))
        #expect(try CSSTranslator.xpath("div") == "descendant-or-self::div")
    }

    // Found by fuzzing (FuzzRegressions/css/css-quote-with-combining-mark): `'` + U+06DC is one Character.
    @Test("a quote followed by a combining mark still chooses the other quote or concat()")
    func quoteWithCombiningMark() throws {
        #expect(CSSXPathBuilder.literal("a'\u{6DC}b") == "\"a'\u{6DC}b\"")
        #expect(CSSXPathBuilder.literal("a'\u{6DC}\"b") == "concat('a', \"'\", '\u{6DC}\"b')")
        _ = try XPathExpression(try CSSTranslator.xpath("a[title^='x\\'\u{6DC}\"y']"))
    }

    @Test("a selector list becomes a union, and a one-step selector a single step")
    func shapes() throws {
        #expect(try CSSTranslator.xpath("div > a") == "descendant-or-self::div/child::a")
        #expect(try CSSTranslator.xpath("a, b") == "descendant-or-self::a | descendant-or-self::b")
        #expect(try CSSTranslator.xpath("h3 + p") == "descendant::h3/following-sibling::*[1][self::p]")
        #expect(try CSSTranslator.xpath("li:lt(2)") == "descendant::li[count(preceding-sibling::*) < 2]")
    }

    // MARK: JSoup segments

    @Test("segment forms select from each context element (itself included)", arguments: [
        SelectionCase("tag.li", items),
        SelectionCase("tag.LI", items),
        SelectionCase("tag.li", from: "li2", ["li2"]),
        SelectionCase("class.item", ["li1", "li2", "li4", "d2"]),
        SelectionCase("class.item", from: "d2", ["d2"]),
        // jsoup's hasClass also accepts the whole attribute (here "intro  Extra"), ignoring case.
        SelectionCase("class.intro  extra", ["p2"]),
        SelectionCase("class.intro extra", []),
        SelectionCase("class.item active", ["li2"]),
        SelectionCase("id.list@tag.a", ["a1", "a2", "a3", "a4", "a5"]),
        SelectionCase("text.下一页", ["a1"]),
        SelectionCase("text.CHAPTER 2", ["a3"]),
        SelectionCase("text.second tail", ["p2"]),
        SelectionCase("children", from: "ul", items),
        SelectionCase("tag.ul@children", items),
        SelectionCase("tag.li@tag.span", ["s1", "s2"]),
        SelectionCase("class.item@tag.a", ["a2", "a3", "a5", "a6"]),
        SelectionCase("ul > li", items),
        SelectionCase(".item@a", ["a2", "a3", "a5", "a6"]),
        SelectionCase("@@tag.li@tag.a", ["a2", "a3", "a4", "a5"]),
        SelectionCase("li a[href$=html]", ["a2", "a3"]),
    ])
    func segments(_ test: SelectionCase) throws {
        try expectRule(test)
    }

    @Test("index forms, per context element", arguments: [
        SelectionCase("tag.li.0", ["li1"]),
        SelectionCase("tag.li.1", ["li2"]),
        SelectionCase("tag.li.-1", ["li5"]),
        SelectionCase("tag.li.-2", ["li4"]),
        SelectionCase("tag.li.9", []),
        SelectionCase("tag.li!0", ["li2", "li3", "li4", "li5"]),
        SelectionCase("tag.li!0:-1", ["li2", "li3", "li4"]),
        SelectionCase("tag.li.0:2", ["li1", "li3"]),
        SelectionCase("tag.li.1:3", ["li2", "li4"]),
        SelectionCase("tag.li[0]", ["li1"]),
        SelectionCase("tag.li[-1]", ["li5"]),
        SelectionCase("tag.li[1,3:5,-1]", ["li2", "li4", "li5"]),
        SelectionCase("tag.li[!0]", ["li2", "li3", "li4", "li5"]),
        SelectionCase("tag.li[!0, -1]", ["li2", "li3", "li4"]),
        SelectionCase("tag.li[1:3]", ["li2", "li3", "li4"]),
        SelectionCase("tag.li[1:]", ["li2", "li3", "li4", "li5"]),
        SelectionCase("tag.li[:1]", ["li1", "li2"]),
        SelectionCase("tag.li[-2:]", ["li4", "li5"]),
        SelectionCase("tag.li[0:10:2]", ["li1", "li3", "li5"]),
        // Legado clamps a range that starts past the end to the last element.
        SelectionCase("tag.li[5:8]", ["li5"]),
        SelectionCase("tag.li[1:-2]", ["li2", "li3", "li4"]),
        SelectionCase("tag.li[0:-1:-3]", ["li1", "li3", "li5"]),
        SelectionCase("[0]", from: "ul", ["li1"]),
        SelectionCase(".-1", from: "ul", ["li5"]),
        SelectionCase("!0", from: "ul", ["li2", "li3", "li4", "li5"]),
        SelectionCase("children.1", from: "ul", ["li2"]),
        SelectionCase("tag.ul@[-1]", ["li5"]),
        SelectionCase("tag.li.0@tag.a", ["a2"]),
        SelectionCase("tag.li@tag.a.0", ["a2", "a3", "a4", "a5"]),
        SelectionCase("tag.li.-1@tag.span", from: "box", ["s2"]),
        SelectionCase("class.item@tag.a.-1", ["a2", "a3", "a5", "a6"]),
        SelectionCase("li.1", ["li2"]),
        SelectionCase("ul > li[1:2]", ["li2", "li3"]),
        SelectionCase("a, b.1", ["a1"]),
        SelectionCase("tag.ul@li.1", ["li2"]),
        SelectionCase("tag.ul@li:not(.item).0", ["li3"]),
        SelectionCase("tag.ul@li + li.0", ["li2"]),
        SelectionCase("tag.div@ul > li.-1", ["li5"]),
        SelectionCase("id.list@p, h3.-1", ["p2"]),
    ])
    func indexes(_ test: SelectionCase) throws {
        try expectRule(test)
    }

    @Test("an index list that runs backwards is reported as a reversal", arguments: [
        SelectionCase("tag.li[-1:0]", ["li5", "li4", "li3", "li2", "li1"]),
        SelectionCase("tag.li.-1:0", ["li5", "li1"]),
        SelectionCase("tag.li.2:0", ["li3", "li1"]),
        SelectionCase("tag.li[3,1]", ["li4", "li2"]),
        SelectionCase("tag.li[3:1]", ["li4", "li3", "li2"]),
        SelectionCase("id.list@tag.li[-1:0]", ["li5", "li4", "li3", "li2", "li1"]),
    ])
    func reversals(_ test: SelectionCase) throws {
        #expect(try JSoupRuleTranslator.translate(test.selector, isList: true).reversed)
        try expectRule(test)
    }

    @Test("string rules end with an extractor", arguments: [
        ("class.item@tag.a@href", ["a2", "a3", "a5", "a6"], JSoupExtractor.attribute("href")),
        ("tag.li.0@text", ["li1"], .text),
        ("tag.p@textNodes", ["p1", "p2"], .textNodes),
        ("id.list@tag.h3@ownText", ["h"], .ownText),
        ("id.list@html", ["box"], .html),
        ("tag.ul@all", ["ul"], .all),
        ("text", ["<document>"], .text),
        ("tag.a.-1@ href", ["a6"], .attribute("href")),
        ("@css:li > a@href", ["a2", "a3", "a4", "a5"], .attribute("href")),
        ("@CSS:.item@text", ["li1", "li2", "li4", "d2"], .text),
        ("@css:a[href*=@]@title", [], .attribute("title")),
    ])
    func stringRules(_ rule: String, _ expected: [String], _ extractor: JSoupExtractor) throws {
        let translation = try JSoupRuleTranslator.translate(rule, isList: false)
        #expect(translation.extractor == extractor)
        #expect(try select(translation.xpath, from: nil) == expected)
    }

    @Test("@css: list rules are the whole selector")
    func cssListRule() throws {
        let translation = try JSoupRuleTranslator.translate("@css:div#list > ul > li:nth-child(odd)", isList: true)
        #expect(translation.extractor == nil)
        #expect(try select(translation.xpath, from: nil) == ["li1", "li3", "li5"])
        #expect(try select(translation.xpath, from: "ul") == [])
    }

    @Test("untranslatable rules are precise errors", arguments: [
        TranslationErrorCase("class.", #"JSoup segment "class." cannot be translated: an index is missing its number"#),
        TranslationErrorCase("class", #"JSoup segment "class" cannot be translated: 'class' needs a name after a dot (class.name)"#),
        TranslationErrorCase("tag.li@@tag.a", #"JSoup rule "tag.li@@tag.a" cannot be translated: a segment between '@'s is empty"#),
        TranslationErrorCase("tag.li[0,2,1]", #"JSoup segment "tag.li[0,2,1]" cannot be translated: the index list picks elements out of document order, and an XPath node-set is always in document order (only a whole reversal, like [-1:0], is kept)"#),
        TranslationErrorCase("tag.li[-1:0]@tag.a", #"JSoup segment "tag.li[-1:0]" cannot be translated: reversing the order in a segment before the last reorders what later segments find per element, which one XPath node-set cannot express; reverse in the last segment"#),
        TranslationErrorCase("tag.div@ul li.0", #"JSoup segment "ul li.0" cannot be translated: an index after the first segment needs the selector as one XPath step, and in "ul li" a descendant combinator here would have to stop at the context element, which an XPath 1.0 predicate cannot see"#),
        TranslationErrorCase("tag.div@p, li > a.0", #"JSoup segment "p, li > a.0" cannot be translated: an index after the first segment counts per context element, and whether an element is that context changes the match; XPath 1.0 cannot tell inside one step"#),
        TranslationErrorCase("tag.li@12", #"JSoup segment "12" cannot be translated: a segment cannot be only a number"#),
        TranslationErrorCase("tag.a[href", #"JSoup rule "tag.a[href" cannot be translated: '[' is not closed"#),
        TranslationErrorCase("tag.li@a:hover", #"CSS ":hover" cannot be translated: dynamic pseudo-classes don't apply to a saved page"#),
    ])
    func ruleErrors(_ test: TranslationErrorCase) {
        do {
            let translation = try JSoupRuleTranslator.translate(test.selector, isList: true)
            Issue.record("\(test.selector) translated to \(translation.xpath)")
        } catch {
            #expect(error.description == test.message)
        }
    }

    @Test("string-rule errors name the rule", arguments: [
        TranslationErrorCase("@css:li > a", #"JSoup rule "@css:li > a" cannot be translated: a @css: string rule needs a final @text, @html, @ownText, @textNodes, @all or @attribute"#),
        TranslationErrorCase("tag.a@", #"JSoup rule "tag.a@" cannot be translated: the extractor after the last '@' is empty"#),
        TranslationErrorCase("tag.a@@href", #"JSoup rule "tag.a@@href" cannot be translated: a segment between '@'s is empty"#),
        TranslationErrorCase("@css:a@", #"JSoup rule "@css:a@" cannot be translated: the extractor after the last '@' is empty"#),
    ])
    func stringRuleErrors(_ test: TranslationErrorCase) {
        do {
            let translation = try JSoupRuleTranslator.translate(test.selector, isList: false)
            Issue.record("\(test.selector) translated to \(translation.xpath)")
        } catch {
            #expect(error.description == test.message)
        }
    }

    // MARK: Helpers

    private func expectCSS(_ test: SelectionCase) throws {
        let xpath = try CSSTranslator.xpath(test.selector)
        #expect(try select(xpath, from: test.context) == test.expected, "\(xpath)")
    }

    private func expectRule(_ test: SelectionCase) throws {
        let translation = try JSoupRuleTranslator.translate(test.selector, isList: true)
        #expect(translation.extractor == nil)
        var found = try select(translation.xpath, from: test.context)
        if translation.reversed { found.reverse() }
        #expect(found == test.expected, "\(translation.xpath)")
    }

    private func select(_ xpath: String, from context: String?) throws -> [String] {
        try labelsSelected(by: xpath, in: Self.html, from: context)
    }
}
