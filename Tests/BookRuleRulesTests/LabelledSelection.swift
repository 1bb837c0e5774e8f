import BookRuleDocument
import TestSupport

/// The `n` labels of what `xpath` selects (compiled once, as the engine does) from the page `html`, or from its
/// element labelled `context`: how the translation suites compare a selector's XPath with what jsoup selects.
func labelsSelected(by xpath: String, in html: String, from context: String?) throws -> [String] {
    let document = try page(html)
    let expression = try XPathExpression(xpath)
    var node = document.root
    if let context {
        guard case .nodes(let nodes) = try XPathExpression("//*[@n='\(context)']").evaluate(at: document.root),
              let element = nodes.first else { throw TestFailure("no element \(context)") }
        node = element
    }
    guard case .nodes(let nodes) = try expression.evaluate(at: node) else { throw TestFailure("\(xpath) gave no node-set") }
    return nodes.map { $0.kind == .document ? "<document>" : $0.attribute("n") ?? "<\($0.name)>" }
}
