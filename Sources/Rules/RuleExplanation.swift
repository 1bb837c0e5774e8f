import BookRuleDocument

/// What a rule runs as and what it selects, for `bookrule try`: read-only views of a compiled rule that the
/// engine does not need (it only evaluates).
extension Rule {
    /// The XPath 1.0 each HTML part of the rule runs as, in order, with what is taken from the nodes when that
    /// is not their value: a JSoup or CSS rule's translation (`//div[@id='list']/dl/dd/a` then `@href`), an
    /// XPath rule as rewritten to JsoupXpath's context-relative meaning. Empty for rules without XPath
    /// (regex, JSONPath, templates, JavaScript) and for XPath filled in from `@get`/`{{…}}` at run time.
    public var xpathTranslations: [String] {
        var result: [String] = []
        Self.collectXPath(body, into: &result)
        return result
    }

    /// The nodes the rule's XPath selects at `context` (before any `##` clean-up, and before values are read
    /// off them), or nil when the rule selects no nodes: regex, JSONPath, templates and JavaScript yield text.
    /// For `a || b` the first part that selects anything; for `a && b` and `a %% b` every part's nodes.
    public func matchedNodes(in context: RuleContext, environment: RuleEnvironment) throws(RuleError) -> [HTMLNode]? {
        do {
            return try Self.nodes(body, in: context, environment: environment)
        } catch {
            throw RuleError(wrapping: error, field: field, dialect: dialect, rule: text)
        }
    }

    private static func collectXPath(_ body: RuleBody, into result: inout [String]) {
        switch body {
        case .xpath(let rule):
            var text = rule.expression.expression
            switch rule.jsoup {
            case .attribute(let name)?: text += "  then @\(name)"
            case .text?: text += "  then text"
            case .ownText?: text += "  then ownText"
            case .textNodes?: text += "  then textNodes"
            case .html?: text += "  then html"
            case .all?: text += "  then all"
            case nil:
                switch rule.extractor {
                case .value: break
                case .allText: text += "  then allText()"
                case .html: text += "  then html()"
                case .outerHTML: text += "  then outerHtml()"
                }
            }
            if rule.reversed { text += "  (reversed)" }
            result.append(text)
        case .byContent(let html, _):
            collectXPath(html, into: &result)
        case .firstNonEmpty(let parts), .concatenation(let parts), .interleaving(let parts):
            for part in parts { collectXPath(part, into: &result) }
        case .replace(let inner, _):
            collectXPath(inner, into: &result)
        case .chain(let steps, _):
            for case .rule(let part) in steps { collectXPath(part, into: &result) }
        case .template(let pieces):
            for case .rule(let part) in pieces { collectXPath(part, into: &result) }
        case .empty, .allInOne, .rawText, .dynamic, .jsonPath, .jsonTemplate:
            break
        }
    }

    private static func nodes(_ body: RuleBody, in context: RuleContext, environment: RuleEnvironment) throws -> [HTMLNode]? {
        switch body {
        case .xpath(let rule):
            guard case .nodes(let nodes) = try rule.evaluate(at: context.xpathNode(baseURL: environment.baseURL)) else { return [] }
            return nodes
        case .byContent(let html, let json):
            return try nodes(context.isJSON ? json : html, in: context, environment: environment)
        case .firstNonEmpty(let parts):
            var sawNodes = false
            for part in parts {
                guard let found = try nodes(part, in: context, environment: environment) else { continue }
                sawNodes = true
                if !found.isEmpty { return found }
            }
            return sawNodes ? [] : nil
        case .concatenation(let parts), .interleaving(let parts):
            let found = try parts.compactMap { try nodes($0, in: context, environment: environment) }
            return found.isEmpty ? nil : found.flatMap { $0 }
        case .replace(let inner, _):
            return try nodes(inner, in: context, environment: environment)
        case .dynamic(let rule):
            return try nodes(rule.body(in: context, environment: environment), in: context, environment: environment)
        case .empty, .allInOne, .rawText, .template, .jsonPath, .jsonTemplate, .chain:
            return nil
        }
    }
}
