import BookRuleDocument
import BookRuleRegex

/// What a rule needs besides its context: the URL the page came from (to parse text fragments against) and
/// the book's `@put`/`@get` variables.
public struct RuleEnvironment: Sendable {
    /// The page's base URL.
    public var baseURL: String
    /// The book's variables.
    public var variables: RuleVariables
    /// What runs the rules' JavaScript; nil where the source has none (a JavaScript step then fails).
    public var script: (any ScriptEvaluating)?
    /// Set for a text source's chapter content only: an element an XPath rule selects is read with its
    /// pictures kept as image lines (`HTMLTextFormatter.contentText`), as Legado reads an element's markup
    /// for content. Every other rule drops pictures.
    public var keepsPictures = false

    /// Creates an environment.
    public init(baseURL: String, variables: RuleVariables = RuleVariables(), script: (any ScriptEvaluating)? = nil) {
        self.baseURL = baseURL
        self.variables = variables
        self.script = script
    }
}

extension Rule {
    /// The elements a list rule selects, in order (reversed when the rule starts with `-`).
    /// - Parameters:
    ///   - context: the page or element the rule is evaluated in.
    ///   - environment: the base URL, variables and script runtime the rule may use.
    ///   - applyingReverse: false when the caller reverses after gathering several pages.
    public func elements(in context: RuleContext, environment: RuleEnvironment,
                         applyingReverse: Bool = true) throws(RuleError) -> [RuleContext] {
        try runPuts(in: context, environment: environment)
        do {
            let result = try body.elements(in: context, environment: environment)
            return reversed && applyingReverse ? result.reversed() : result
        } catch {
            throw wrap(error)
        }
    }

    /// Every string a rule yields, in order.
    public func strings(in context: RuleContext, environment: RuleEnvironment) throws(RuleError) -> [String] {
        try texts(in: context, environment: environment).map(\.text)
    }

    /// Every value a rule yields, in order, each saying whether it is still markup (see `RuleText`).
    public func texts(in context: RuleContext, environment: RuleEnvironment) throws(RuleError) -> [RuleText] {
        try runPuts(in: context, environment: environment)
        do {
            return try body.texts(in: context, environment: environment)
        } catch {
            throw wrap(error)
        }
    }

    /// The rule's strings joined with "\n" (Legado's getString).
    public func string(in context: RuleContext, environment: RuleEnvironment) throws(RuleError) -> String {
        try strings(in: context, environment: environment).joined(separator: "\n")
    }

    /// The string `body` makes (or not) of the nodes whose values `strings(in:environment:)` would return
    /// (selected into `scratch`, whose storage is reused, and whose `bytes` are handed to `body` to write
    /// into); nil, and `body` not run, when the rule needs the general path: anything but one simple XPath
    /// read straight off the nodes of an HTML context, without `@put`. Lets a caller read the fields of
    /// thousands of list elements making only the value's string, without the nodes outliving the call.
    package func withValueNodes(in context: RuleContext, scratch: inout NodeScratch,
                                _ body: (borrowing LentNodes, inout [UInt8]) -> String?) -> String?? {
        // Read through `storage` so that the path is borrowed, not copied, once per chapter.
        guard storage.nodeValuePath != nil, case .node(let node) = context, !context.isJSON else { return nil }
        return storage.nodeValuePath?.withNodes(at: node, scratch: &scratch, body) ?? nil
    }

    private func runPuts(in context: RuleContext, environment: RuleEnvironment) throws(RuleError) {
        for put in puts {
            do {
                environment.variables[put.key] = try put.rule.strings(in: context, environment: environment)
                    .joined(separator: "\n")
            } catch {
                throw wrap(error)
            }
        }
    }

    func wrap(_ error: any Error) -> RuleError {
        RuleError(wrapping: error, field: field, dialect: dialect, rule: text)
    }
}

extension RuleBody {
    func elements(in context: RuleContext, environment: RuleEnvironment) throws -> [RuleContext] {
        switch self {
        case .empty:
            return []
        case .xpath(let rule):
            switch try rule.evaluate(at: context.xpathNode(baseURL: environment.baseURL)) {
            case .nodes(let nodes): return nodes.map(RuleContext.node)
            case .string(let text): return text.isEmpty ? [] : [.text(text)]
            case .number, .boolean: return []
            }
        case .byContent(let html, let json):
            return try (context.isJSON ? json : html).elements(in: context, environment: environment)
        case .allInOne(let patterns):
            var subjects = [context.rawText]
            var matches: [RegexMatch] = []
            for (index, pattern) in patterns.enumerated() {
                matches = try subjects.flatMap { try pattern.allMatches(in: $0) }
                if index < patterns.count - 1 { subjects = matches.map { $0[0] ?? "" } }
            }
            return matches.map(RuleContext.match)
        case .firstNonEmpty(let parts):
            for part in parts {
                let result = try part.elements(in: context, environment: environment)
                if !result.isEmpty { return result }
            }
            return []
        case .concatenation(let parts):
            return try parts.flatMap { try $0.elements(in: context, environment: environment) }
        case .interleaving(let parts):
            return interleave(try parts.map { try $0.elements(in: context, environment: environment) })
        case .replace(let inner, _):
            return try inner.elements(in: context, environment: environment)
        case .dynamic(let rule):
            return try rule.body(in: context, environment: environment).elements(in: context, environment: environment)
        case .template, .rawText, .jsonTemplate:
            return try strings(in: context, environment: environment).map(RuleContext.text)
        case .jsonPath(let path):
            guard let root = context.jsonValue else { return [] }
            let results = path.evaluate(root)
            // A definite path naming an array lists its elements, as Legado reads it into a list.
            if path.isDefinite, results.count == 1, case .array(let items) = results[0] {
                return items.map { RuleContext.json($0.value) }
            }
            return results.map(RuleContext.json)
        case .chain(let steps, let kind):
            return try RuleChain.run(steps, kind: kind, in: context, environment: environment).value.contexts
        }
    }

    func strings(in context: RuleContext, environment: RuleEnvironment) throws -> [String] {
        try texts(in: context, environment: environment).map(\.text)
    }

    func texts(in context: RuleContext, environment: RuleEnvironment) throws -> [RuleText] {
        switch self {
        case .empty:
            return []
        case .xpath(let rule):
            return try rule.texts(at: context.xpathNode(baseURL: environment.baseURL),
                                  picturesAgainst: environment.keepsPictures ? environment.baseURL : nil)
        case .byContent(let html, let json):
            return try (context.isJSON ? json : html).texts(in: context, environment: environment)
        case .allInOne:
            return try elements(in: context, environment: environment).map { RuleText($0.rawText, isMarkup: $0.rawTextIsMarkup) }
        case .firstNonEmpty(let parts):
            for part in parts {
                let result = try part.texts(in: context, environment: environment)
                if result.contains(where: { !$0.text.isEmpty }) { return result }
            }
            return []
        case .concatenation(let parts):
            return try parts.flatMap { try $0.texts(in: context, environment: environment) }
        case .interleaving(let parts):
            return interleave(try parts.map { try $0.texts(in: context, environment: environment) })
        case .template(let pieces):
            // Literals are the author's own text and never escaped; a rule's or group's markup makes the whole
            // value markup, and plain values then go in escaped (see `RuleText.joined`).
            var values: [RuleText] = []
            for piece in pieces {
                switch piece {
                case .literal(let text):
                    values.append(RuleText(text, isMarkup: true))
                case .variable(let key):
                    values.append(RuleText(environment.variables[key], isMarkup: false))
                case .group(let number):
                    var group = ""
                    if case .match(let match) = context { group = match[number] ?? "" }
                    values.append(RuleText(group, isMarkup: true))
                case .rule(let body):
                    values.append(.joined(try body.texts(in: context, environment: environment), separator: "\n"))
                }
            }
            let hasMarkupValue = zip(pieces, values).contains { piece, value in
                if case .literal = piece { return false }
                return value.isMarkup
            }
            return [RuleText(values.map { hasMarkupValue ? $0.markup : $0.text }.joined(), isMarkup: hasMarkupValue)]
        case .replace(let inner, let replacement):
            return try inner.texts(in: context, environment: environment).map { value in
                if replacement.firstOnly {
                    guard let match = try replacement.pattern.firstMatch(in: value.text) else { return RuleText("", isMarkup: value.isMarkup) }
                    return RuleText(replacement.replacement.expand(match), isMarkup: value.isMarkup)
                }
                return RuleText(try replacement.pattern.replacingMatches(in: value.text, with: replacement.replacement),
                                isMarkup: value.isMarkup)
            }
        case .rawText:
            return [RuleText(context.rawText, isMarkup: context.rawTextIsMarkup)]
        case .dynamic(let rule):
            return try rule.body(in: context, environment: environment).texts(in: context, environment: environment)
        case .jsonPath(let path):
            guard let root = context.jsonValue else { return [] }
            return path.strings(from: root).map { RuleText($0, isMarkup: true) }
        case .jsonTemplate(let template):
            guard let root = context.jsonValue else { return [] }
            return [RuleText(template.render(root), isMarkup: true)]
        case .chain(let steps, let kind):
            let result = try RuleChain.run(steps, kind: kind, in: context, environment: environment)
            return result.value.strings.map { RuleText($0, isMarkup: result.isMarkup) }
        }
    }
}

extension XPathExtractor {
    /// Whether `extract(from:)` gives markup (`html()`, `outerHtml()`) rather than text.
    var yieldsMarkup: Bool { self == .html || self == .outerHTML }

    func extract(from node: HTMLNode) -> String {
        switch self {
        case .value, .allText: return node.stringValue
        case .html: return node.innerHTML
        case .outerHTML: return node.outerHTML
        }
    }
}

/// a1, b1, c1, a2, b2, … until every list is used up.
func interleave<T>(_ lists: [[T]]) -> [T] {
    var result: [T] = []
    let longest = lists.map(\.count).max() ?? 0
    for index in 0..<longest {
        for list in lists where index < list.count { result.append(list[index]) }
    }
    return result
}
