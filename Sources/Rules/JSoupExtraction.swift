import CLibXML2
import BookRuleDocument
import BookRuleRegex

extension JSoupExtractor {
    /// Whether `values(from:)` gives markup (`html`, `all`) rather than text.
    var yieldsMarkup: Bool {
        switch self {
        case .html, .all: return true
        default: return false
        }
    }

    /// Script and style elements, removed from `html` results as Legado does.
    private static let scriptOrStyle = try? RegexPattern("(?is)<(script|style)\\b.*?</\\1\\s*>")

    /// What the extractor yields for the selected elements, as Legado's JSoup analyzer gives it (see
    /// `JSoupExtractor`'s cases): one value per element, except `html` and `all`, which give one value for all.
    func values(from nodes: [HTMLNode]) -> [String] {
        switch self {
        case .text:
            return nodes.map { HTMLTextFormatter.inlineText(of: $0) }.filter { !$0.isEmpty }
        case .ownText:
            return nodes.map { Self.ownText(of: $0) }.filter { !$0.isEmpty }
        case .textNodes:
            return nodes.map { node in
                Self.ownTextNodes(of: node).map { $0.trimmingParagraphSpace() }.filter { !$0.isEmpty }.joined(separator: "\n")
            }.filter { !$0.isEmpty }
        case .html:
            let markup = nodes.map(\.outerHTML).joined(separator: "\n")
            let cleaned = (try? Self.scriptOrStyle?.replacingMatches(in: markup, with: .empty)) ?? markup
            return cleaned.isEmpty ? [] : [cleaned]
        case .all:
            let markup = nodes.map(\.outerHTML).joined(separator: "\n")
            return markup.isEmpty ? [] : [markup]
        case .attribute(let name):
            var seen: Set<String> = []
            var values: [String] = []
            for node in nodes {
                guard let value = node.attribute(name), !value.trimmingASCIIWhitespace().isEmpty,
                      seen.insert(value).inserted else { continue }
                values.append(value)
            }
            return values
        }
    }

    /// The element's own text nodes, in order.
    private static func ownTextNodes(of node: HTMLNode) -> [String] {
        var texts: [String] = []
        var child = node.pointer.pointee.children
        while let item = child {
            if item.pointee.type == XML_TEXT_NODE || item.pointee.type == XML_CDATA_SECTION_NODE,
               let content = item.pointee.content {
                texts.append(String(cString: content))
            }
            child = item.pointee.next
        }
        return texts
    }

    /// jsoup's `ownText()`: own text nodes joined, a child `<br>` as a space, whitespace collapsed (U+3000 is not
    /// whitespace to jsoup).
    private static func ownText(of node: HTMLNode) -> String {
        var text = ""
        var child = node.pointer.pointee.children
        while let item = child {
            if item.pointee.type == XML_TEXT_NODE || item.pointee.type == XML_CDATA_SECTION_NODE,
               let content = item.pointee.content {
                text += String(cString: content)
            } else if item.pointee.type == XML_ELEMENT_NODE, HTMLNode.name(of: item) == "br" {
                text += " "
            }
            child = item.pointee.next
        }
        return HTMLTextFormatter.titleLine(text)
    }
}
