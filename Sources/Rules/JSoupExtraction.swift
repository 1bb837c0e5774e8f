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
            return nodes.map { HTMLTextFormatter.titleLine($0.ownTextWithBreaksAsSpaces) }.filter { !$0.isEmpty }
        case .textNodes:
            return nodes.map { node in
                node.ownTextNodes.map { $0.trimmingParagraphSpace() }.filter { !$0.isEmpty }.joined(separator: "\n")
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
}
