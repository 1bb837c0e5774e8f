import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import BookRuleLocking
import BookRuleJSON
import BookRuleEngine
import BookRuleLibrary
import TestSupport

/// Rules written against jsoup's tables (which insert `tbody`) and against libxml2's (which do not).
@Suite("Table rules with and without tbody")
struct TableBodyRuleTests {
    /// Rows written directly in the table: jsoup inserts a tbody around them, libxml2 does not.
    static let bare = """
    <html><body><table id="t"><tr data-id="r1"><td>one</td></tr><tr data-id="r2"><td>two</td></tr></table></body></html>
    """
    /// The page wrote its tbody: both parsers keep it.
    static let written = """
    <html><body><table id="t"><tbody><tr data-id="r1"><td>one</td></tr><tr data-id="r2"><td>two</td></tr></tbody></table></body></html>
    """
    /// A head and a foot around bare rows: jsoup puts only the bare rows in an inserted tbody.
    static let headed = """
    <html><body><table id="t"><thead><tr data-id="h"><th>head</th></tr></thead><tr data-id="r1"><td>one</td></tr>\
    <tr data-id="r2"><td>two</td></tr><tfoot><tr data-id="f"><td>foot</td></tr></tfoot></table></body></html>
    """
    /// A table in a cell of another, both with bare rows.
    static let nested = """
    <html><body><table id="o"><tr data-id="o1"><td><table id="i"><tr data-id="i1"><td>in</td></tr></table></td></tr>\
    <tr data-id="o2"><td>two</td></tr></table></body></html>
    """

    func ids(_ rule: String, _ html: String) throws -> [String] {
        let document = try page(html)
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let elements = try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list)
            .elements(in: .node(document.root), environment: environment)
        let id = try RuleParser.parse("@data-id", field: "ruleToc.chapterName", kind: .string)
        return try elements.flatMap { try id.strings(in: $0, environment: environment) }
    }

    static let withTableBody = ["//table/tbody/tr", "//tbody/tr", "@css:table > tbody > tr", "table > tbody > tr",
                                "tag.table@tag.tbody@tag.tr", "@@tag.tbody@tag.tr", "//table[@id='t']/tbody/tr"]
    static let withoutTableBody = ["//table/tr", "@css:table > tr", "table > tr", "tag.table@tag.tr", "//table//tr"]

    @Test("a tbody rule matches rows jsoup puts in an inserted tbody", arguments: withTableBody)
    func tableBodyRuleOnBareRows(_ rule: String) throws {
        #expect(try ids(rule, Self.bare) == ["r1", "r2"])
    }

    @Test("a tbody rule matches rows in a tbody the page wrote", arguments: withTableBody)
    func tableBodyRuleOnWrittenBody(_ rule: String) throws {
        #expect(try ids(rule, Self.written) == ["r1", "r2"])
    }

    @Test("a rule without tbody still matches bare rows", arguments: withoutTableBody)
    func ruleWithoutTableBodyOnBareRows(_ rule: String) throws {
        #expect(try ids(rule, Self.bare) == ["r1", "r2"])
    }

    @Test("a child rule without tbody matches no rows inside a written tbody, as in jsoup")
    func childRuleWithoutTableBodyOnWrittenBody() throws {
        #expect(try ids("//table/tr", Self.written) == [])
        #expect(try ids("//table//tr", Self.written) == ["r1", "r2"])
    }

    @Test("a tbody rule skips thead and tfoot rows; their own steps still match them")
    func headAndFoot() throws {
        #expect(try ids("//table/tbody/tr", Self.headed) == ["r1", "r2"])
        #expect(try ids("table > tbody > tr", Self.headed) == ["r1", "r2"])
        #expect(try ids("tag.table@tag.tbody@tag.tr", Self.headed) == ["r1", "r2"])
        #expect(try ids("//table/tbody//td/..", Self.headed) == ["r1", "r2"])
        #expect(try ids("//table/tbody//tr", Self.headed) == ["r1", "r2"])
        #expect(try ids("//table/thead/tr", Self.headed) == ["h"])
        #expect(try ids("//table/tfoot/tr", Self.headed) == ["f"])
        #expect(try ids("//table/tr", Self.headed) == ["r1", "r2"])
    }

    @Test("a tbody rule matches the rows of nested tables in document order")
    func nestedTables() throws {
        #expect(try ids("//table/tbody/tr", Self.nested) == ["o1", "i1", "o2"])
        #expect(try ids("table > tbody > tr", Self.nested) == ["o1", "i1", "o2"])
        #expect(try ids("//table[@id='o']/tbody/tr", Self.nested) == ["o1", "o2"])
        #expect(try ids("//table/tbody/tr/td/table/tbody/tr", Self.nested) == ["i1"])
    }

    @Test("a first-tbody position and a string rule through tbody both match bare rows")
    func positionAndText() throws {
        #expect(try ids("//table/tbody[1]/tr", Self.bare) == ["r1", "r2"])
        #expect(try ids("//table/tbody/tr[2]", Self.bare) == ["r2"])
        let document = try page(Self.bare)
        let text = try RuleParser.parse("//table/tbody/tr/td/text()", field: "f", kind: .string)
            .strings(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
        #expect(text == ["one", "two"])
    }

    @Test("a tbody with an attribute test can only be one the page wrote")
    func attributeTestOnTableBody() throws {
        #expect(try ids("//table/tbody[@class='x']/tr", Self.bare) == [])
    }

    @Test("an XPath without a tbody step is compiled unchanged")
    func unchangedWithoutTableBody() {
        for xpath in ["descendant-or-self::table/tr", "//a[@title='tbody']/@href", "count(//tr) > 1"] {
            #expect(TableBodyAlternatives.rewrite(xpath) == xpath)
        }
        #expect(TableBodyAlternatives.rewrite("count(table/tbody/tr)")
            == "count((table/tbody/tr | table/self::table[tr]/tr))")
    }

    @Test("a tbody rule nested in its own predicates stays under the length cap, and a plain one keeps its alternative", .tags(.realTime))
    func nestedTableBodyRuleBounded() throws {
        var rule = "//a/tbody/tbody/tbody/tbody"
        for _ in 0..<5 { rule = "//a[\(rule)]/tbody/tbody/tbody/tbody" }
        let start = ContinuousClock.now
        let compiled = TableBodyAlternatives.rewrite(rule)
        #expect(ContinuousClock.now - start < TestTime.bound(.seconds(5)))
        #expect(compiled.utf8.count <= TableBodyAlternatives.maximumLength)
        let unchanged = compiled == rule  // not in the expectation: a failure would print the whole text
        #expect(unchanged)
        _ = try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list)
        #expect(TableBodyAlternatives.rewrite("//div[.//table/tbody/tr]/table/tbody/tr")
            == "(//div[(.//table/tbody/tr | .//table/self::table[tr]/tr)]/table/tbody/tr"
            + " | //div[(.//table/tbody/tr | .//table/self::table[tr]/tr)]/table/self::table[tr]/tr)")
        #expect(try ids("//table/tbody/tr", Self.bare) == ["r1", "r2"])
    }
}
