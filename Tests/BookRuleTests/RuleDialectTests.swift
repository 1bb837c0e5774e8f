import Testing
@testable import BookRule

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

    @Test("unsupported dialects are reported with the field, never guessed", arguments: [
        ("@css:dd > a", "ruleToc.chapterList: CSS rules are not supported yet"),
        ("class.list@tag.a", "ruleToc.chapterList: JSoup rules are not supported yet"),
        ("@js:java.ajax(baseUrl)", "ruleToc.chapterList: JavaScript rules are not supported"),
    ])
    func unsupported(rule: String, message: String) {
        #expect(throws: RuleError.self) { try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list) }
        do {
            _ = try RuleParser.parse(rule, field: "ruleToc.chapterList", kind: .list)
        } catch {
            #expect(error.description == message)
            #expect(error.isUnsupported)
        }
    }

    @Test("JavaScript inside {{…}} of a string rule is named")
    func embeddedJavaScript() {
        do {
            _ = try RuleParser.parse("https://x.test/{{result.replace('a','b')}}", field: "ruleSearch.bookUrl", kind: .string)
            Issue.record("expected an error")
        } catch {
            #expect(error.dialect == .javaScript)
            #expect(error.description.hasPrefix("ruleSearch.bookUrl: JavaScript rules are not supported"))
        }
    }
}
