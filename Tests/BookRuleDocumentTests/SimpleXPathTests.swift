import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import TestSupport

@Suite("The direct tree walk gives exactly what libxml2 gives")
struct SimpleXPathTests {
    static let html = """
    <html><body><div id="list"><dl>
      <dd><a href="/1.html" title="t1">一<b>粗</b>二</a></dd>
      <dd><a href="/2.html">二</a><span>x<a href="/n.html">嵌</a></span></dd>
      <dd><div><div><a href="/3.html">三</a></div></div></dd>
    </dl></div><a href="/top.html">top</a></body></html>
    """

    static let expressions = [
        "//a/@href", "//a/text()", "/a/@href", "/a", "//a", "/text()", "//dd", "/dd/a/@title", "//div/div/a",
        "//*", "//span/a/text()", "@XPath-not-simple", "/@href", "//a/@title", "//dd/a",
    ]

    @Test("simple paths agree with libxml2 from the page, list items and links", arguments: expressions)
    func agrees(expression: String) throws {
        let document = try page(Self.html)
        let environment = RuleEnvironment(baseURL: document.baseURL)
        var contexts = [document.root]
        for list in ["//dd", "//dd/a", "//span"] {
            let rule = try RuleParser.parse(list, field: "l", kind: .list)
            for case .node(let node) in try rule.elements(in: .node(document.root), environment: environment) {
                contexts.append(node)
            }
        }
        guard let simple = SimpleXPath(expression) else {
            #expect(expression.hasPrefix("@"), "\(expression) should be in the simple grammar")
            return
        }
        let general = try XPathExpression(XPathRewriter.contextRelative(expression))
        for context in contexts {
            guard case .nodes(let expected) = try general.evaluate(at: context) else {
                Issue.record("libxml2 gave no node-set for \(expression)")
                continue
            }
            if let nodes = simple.evaluate(at: context) {
                #expect(nodes.map(\.pointer) == expected.map(\.pointer), "\(expression) from \(context.name)")
            } else {
                // Only nested matches may fall back; the fallback is then libxml2 itself.
                #expect(expression.hasPrefix("//"))
            }
        }
    }

    @Test("paths outside the simple grammar are left to libxml2", arguments: [
        "//a[1]", "//a/@href|//b", "string(//a)", "//dd//a", "//@href", "//text()", "../a", "//a/following-sibling::a",
    ])
    func rejects(expression: String) {
        #expect(SimpleXPath(expression) == nil)
    }
}
