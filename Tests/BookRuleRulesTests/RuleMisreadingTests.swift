import Testing
@testable import BookRuleRules

@Suite("Rules read in a dialect their author did not mean")
struct RuleMisreadingTests {
    @Test("XPath without a leading / is named, with the spelling that means it", arguments: [
        ("text()", "//text()"), ("a/@href", "//a/@href"), ("./a/@href", "@XPath:./a/@href"),
        ("(//span/b)[1]/text()", "@XPath:(//span/b)[1]/text()"), ("div[@id='x']/text()", "//div[@id='x']/text()"),
    ])
    func misread(rule: String, suggestion: String) {
        let warning = RuleMisreading.warning(for: rule, kind: .string)
        #expect(warning?.contains("\"\(suggestion)\"") == true, "\(warning ?? "nil")")
    }

    @Test("real JSoup, CSS, JSONPath and XPath rules get no warning", arguments: [
        "class.name@text", "id.list@tag.a@href", "@css:div > a@href", "$.data.name", "//a/@href", "text",
        "tag.a.0@href##\\s+", "@XPath://a/text()", "name", "{{@get:{x}}}", "@js:result", "href",
    ])
    func fine(rule: String) {
        #expect(RuleMisreading.warning(for: rule, kind: .string) == nil)
    }

    @Test("a list rule's order prefix is not read as part of its path")
    func listOrder() {
        #expect(RuleMisreading.warning(for: "-//ul[@id='list']/li", kind: .list) == nil)
        #expect(RuleMisreading.warning(for: "+//ul/li", kind: .list) == nil)
        #expect(RuleMisreading.warning(for: "-ul[@id='list']/li", kind: .list)?.contains("\"//ul[@id='list']/li\"") == true)
    }

    @Test("a replaceRegex without ## is named; with ## or as JavaScript it is not")
    func replaceRegex() {
        #expect(RuleMisreading.replaceRegexWarning(for: "^上一页<$")?.contains("##^上一页<$") == true)
        #expect(RuleMisreading.replaceRegexWarning(for: "##广告") == nil)
        #expect(RuleMisreading.replaceRegexWarning(for: "@js:result") == nil)
    }
}
