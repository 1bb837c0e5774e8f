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
    /// The list element the rules are relative to (its short path), when they are: see `init`.
    package var listElement: String?

    /// Proposals for element `node` of `page`. With `listRule` (the section's list rule, when the focused field
    /// is read inside each list element) and `node` inside one of its elements, the rules start at that list
    /// element (`//li/a[2]`: the engine reads `//` from the element it is given) and their match counts are
    /// summed over every list element, as the field will run.
    package init(node: HTMLNode, page: StudioPage, listRule: String? = nil) {
        path = node.shortPath()
        let text = HTMLTextFormatter.collapsingWhitespace(node.stringValue)
        self.text = text.count > 80 ? String(text.prefix(79)) + "…" : text
        let environment = RuleEnvironment(baseURL: page.document.baseURL)
        var items: [RuleContext]?
        var holder: HTMLNode?
        if let listRule, let list = try? RuleParser.parse(listRule, field: "list", kind: .list),
           let found = try? list.elements(in: page.document.rootContext, environment: environment) {
            var identities = Set<Int>()
            for case .node(let item) in found { identities.insert(item.identity) }
            var current: HTMLNode? = node
            while let element = current, element.kind == .element {
                if identities.contains(element.identity) {
                    holder = element
                    items = found
                    break
                }
                current = element.parentNode
            }
        }
        listElement = holder?.shortPath()
        var steps: [(tag: String, id: String?, position: Int?, className: String?)] = []
        var current: HTMLNode? = node
        while let element = current, element.kind == .element, steps.count < 12 {
            let tag = element.name
            let className = element.attribute("class")?.split(separator: " ").first.map(String.init)
                .flatMap { Self.isPlainIdentifier($0) ? $0 : nil }
            if let holder, element.identity == holder.identity {
                // The list element itself: no id or position, which would single out one of them.
                steps.append((tag, nil, nil, className))
                break
            }
            let id = holder != nil ? nil : element.attribute("id").flatMap { Self.isPlainIdentifier($0) ? $0 : nil }
            if let id {
                steps.append((tag, id, nil, nil))
                break
            }
            let siblings = element.parentNode?.elementChildren ?? []
            let same = siblings.filter { $0.name == tag }
            let position = same.count > 1 ? (same.firstIndex { $0.identity == element.identity }).map { $0 + 1 } : nil
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
            return (anchored || holder != nil ? "//" : "/") + parts.joined(separator: "/")
        }
        var css: [String] = []
        // Relative CSS selects below the list element (CSS has no "the element itself").
        for step in holder != nil ? Array(steps.dropFirst()) : steps {
            if let id = step.id { css.append("\(step.tag)#\(id)"); continue }
            var part = step.tag
            if let position = step.position { part += ":nth-of-type(\(position))" }
            css.append(part)
        }
        var proposals = [("XPath", xpath(positions: true)), ("CSS", "@css:" + css.joined(separator: " > ")),
                         ("XPath (all like it)", xpath(positions: false))]
        if css.isEmpty { proposals.remove(at: 1) }
        let contexts = items ?? [page.document.rootContext]
        candidates = proposals.map { kind, rule in Self.check(kind: kind, rule: rule, in: contexts, environment: environment) }
        // The general rule is only worth showing when it differs from the exact one.
        if candidates.count > 1, candidates[candidates.count - 1].rule == candidates[0].rule { candidates.removeLast() }
    }

    /// Runs `rule` in every context (the page, or each list element) and counts what it selects.
    private static func check(kind: String, rule: String, in contexts: [RuleContext], environment: RuleEnvironment) -> Candidate {
        do {
            let parsed = try RuleParser.parse(rule, field: "proposal", kind: .list)
            var matches = 0
            for context in contexts { matches += try parsed.elements(in: context, environment: environment).count }
            return Candidate(kind: kind, rule: rule, matches: matches, error: nil)
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
