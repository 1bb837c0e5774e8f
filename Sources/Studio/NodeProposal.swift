import BookRuleDocument
import BookRuleRules

/// Rules that select a clicked element, each checked by running it on the page: an exact XPath and CSS
/// selector (anchored at the nearest ancestor with an id, positions where siblings share a tag) and a general
/// XPath without positions, which selects the element and its like (every chapter link, say).
package struct NodeProposal: Sendable, Codable, Equatable {
    /// One proposed rule.
    package struct Candidate: Sendable, Codable, Equatable {
        /// What it is: `XPath`, `CSS`, `XPath (all like it)`.
        package var kind: String
        /// The rule as a source writes it (`@css:` prefixed for CSS).
        package var rule: String
        /// How many nodes it selects on the page.
        package var matches: Int
        /// Why it could not be checked, if it could not.
        package var error: String?
    }

    /// The clicked element's short path, for display.
    package var path: String
    /// The clicked element's text, shortened.
    package var text: String
    /// The proposals.
    package var candidates: [Candidate]

    /// Proposals for element `node` of `page`.
    package init(node: HTMLNode, page: StudioPage) {
        path = node.shortPath()
        let text = HTMLTextFormatter.collapsingWhitespace(node.stringValue)
        self.text = text.count > 80 ? String(text.prefix(79)) + "…" : text
        var steps: [(tag: String, id: String?, position: Int?, className: String?)] = []
        var current: HTMLNode? = node
        while let element = current, element.kind == .element, steps.count < 12 {
            let tag = element.name
            let id = element.attribute("id").flatMap { Self.isPlainIdentifier($0) ? $0 : nil }
            if let id {
                steps.append((tag, id, nil, nil))
                break
            }
            let siblings = element.parentNode?.elementChildren ?? []
            let same = siblings.filter { $0.name == tag }
            let position = same.count > 1 ? (same.firstIndex { $0.identity == element.identity }).map { $0 + 1 } : nil
            let className = element.attribute("class")?.split(separator: " ").first.map(String.init)
                .flatMap { Self.isPlainIdentifier($0) ? $0 : nil }
            steps.append((tag, nil, position, className))
            if tag == "html" { break }
            current = element.parentNode
        }
        steps.reverse()
        let anchored = steps.first?.id != nil
        func xpath(positions: Bool) -> String {
            var parts: [String] = []
            for step in steps {
                if let id = step.id { parts.append("\(step.tag)[@id='\(id)']"); continue }
                var part = step.tag
                if !positions, let className = step.className { part += "[contains(concat(' ',normalize-space(@class),' '),' \(className) ')]" }
                if positions, let position = step.position { part += "[\(position)]" }
                parts.append(part)
            }
            return (anchored ? "//" : "/") + parts.joined(separator: "/")
        }
        var css: [String] = []
        for step in steps {
            if let id = step.id { css.append("\(step.tag)#\(id)"); continue }
            var part = step.tag
            if let position = step.position { part += ":nth-of-type(\(position))" }
            css.append(part)
        }
        let proposals = [("XPath", xpath(positions: true)), ("CSS", "@css:" + css.joined(separator: " > ")),
                         ("XPath (all like it)", xpath(positions: false))]
        candidates = proposals.map { kind, rule in Self.check(kind: kind, rule: rule, on: page) }
        // The general rule is only worth showing when it differs from the exact one.
        if candidates.count == 3, candidates[2].rule == candidates[0].rule { candidates.removeLast() }
    }

    private static func check(kind: String, rule: String, on page: StudioPage) -> Candidate {
        do {
            let parsed = try RuleParser.parse(rule, field: "proposal", kind: .list)
            let nodes = try parsed.elements(in: page.document.rootContext, environment: RuleEnvironment(baseURL: page.document.baseURL))
            return Candidate(kind: kind, rule: rule, matches: nodes.count, error: nil)
        } catch {
            return Candidate(kind: kind, rule: rule, matches: 0, error: error.reason)
        }
    }

    /// Letters, digits, `-` and `_` only: safe inside `'…'` in XPath and as a CSS identifier unescaped.
    private static func isPlainIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, !("0"..."9").contains(first), first != "-" else { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
    }
}
