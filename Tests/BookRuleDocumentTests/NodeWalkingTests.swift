import Testing
@testable import BookRuleDocument

@Suite("Walking a tree node by node: children, attributes, identity")
struct NodeWalkingTests {
    @Test("childNodes lists text and comments too; attributes keep their order and decoded values; identity tells nodes apart")
    func walk() throws {
        let document = try HTMLDocument(bytes: Array("<html><body><p id='a' class=\"x &amp; y\" data-n=1>one<!-- c --><b>two</b></p></body></html>".utf8),
                                        url: "https://example.com/")
        guard case .nodes(let found) = try XPathExpression("//p").evaluate(at: document.root), let paragraph = found.first else {
            Issue.record("no <p>")
            return
        }
        let children = paragraph.childNodes
        #expect(children.map(\.kind) == [.text, .other, .element])
        #expect(children.last?.name == "b")
        #expect(paragraph.attributes.map(\.name) == ["id", "class", "data-n"])
        #expect(paragraph.attributes.map(\.value) == ["a", "x & y", "1"])
        #expect(children[0].attributes.isEmpty)
        guard case .nodes(let again) = try XPathExpression("//b/..").evaluate(at: document.root) else { return }
        #expect(again.first?.identity == paragraph.identity)
        #expect(children[2].identity != paragraph.identity)
        #expect(children[2].parentNode?.identity == paragraph.identity)
    }
}
