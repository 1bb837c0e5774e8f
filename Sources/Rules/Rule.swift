import BookRuleDocument
import BookRuleRegex

/// One rule string from a book source, parsed and compiled when the source loads.
///
/// Every XPath and regex inside is compiled once here; evaluation only runs them. A rule is immutable and
/// may be evaluated from several tasks at once.
public struct Rule: Sendable {
    /// Everything a rule holds, in one object: a TOC copies its field rules out of their section for each of
    /// thousands of chapters, and a copy is then one reference count instead of one per string and array.
    final class Storage: Sendable {
        let text: String
        let field: String
        let dialect: RuleDialect?
        let reversed: Bool
        let body: RuleBody
        let puts: [(key: String, rule: RuleBody)]
        let nodeValuePath: SimpleXPath?

        init(text: String, field: String, dialect: RuleDialect?, reversed: Bool, body: RuleBody,
             puts: [(key: String, rule: RuleBody)], nodeValuePath: SimpleXPath?) {
            self.text = text
            self.field = field
            self.dialect = dialect
            self.reversed = reversed
            self.body = body
            self.puts = puts
            self.nodeValuePath = nodeValuePath
        }
    }

    let storage: Storage

    /// The rule text as written in the source.
    public var text: String { storage.text }
    /// Where the rule sits, e.g. `ruleToc.chapterList`.
    public var field: String { storage.field }
    /// Whether the rule yields list elements or strings. Stored beside `storage` on purpose: a struct of one
    /// class reference alone, returned by the typed-throwing `RuleParser.parse` to another module's async
    /// code, came back as a null reference in a release build (Swift 6.3, the benchmark's phase timing).
    public let kind: RuleKind
    /// The dialect of the rule's first (or only) part, for reports.
    public var dialect: RuleDialect? { storage.dialect }
    /// For list rules: a leading `-` asks for the list reversed.
    public var reversed: Bool { storage.reversed }
    var body: RuleBody { storage.body }
    var puts: [(key: String, rule: RuleBody)] { storage.puts }
    /// The simple path whose nodes' values are the rule's strings on a page, when that is all the rule does
    /// (no `@put`, one XPath read straight off the nodes): decided once here for the per-chapter fast path.
    var nodeValuePath: SimpleXPath? { storage.nodeValuePath }

    init(text: String, field: String, kind: RuleKind, dialect: RuleDialect?, reversed: Bool,
         body: RuleBody, puts: [(key: String, rule: RuleBody)]) {
        var html = body
        if case .byContent(let page, _) = body { html = page }
        var nodeValuePath: SimpleXPath?
        if puts.isEmpty, case .xpath(let rule) = html, rule.readsNodeValues { nodeValuePath = rule.simple }
        self.kind = kind
        storage = Storage(text: text, field: field, dialect: dialect, reversed: reversed, body: body, puts: puts,
                          nodeValuePath: nodeValuePath)
    }

    /// Whether the rule is empty (nothing to evaluate).
    public var isEmpty: Bool {
        if case .empty = body, puts.isEmpty { return true }
        return false
    }
}

/// How a rule's result is used.
public enum RuleKind: Sendable, Equatable {
    /// `bookList`, `chapterList`: yields elements (or regex matches) that field rules then read.
    case list
    /// Every other field: yields strings.
    case string
    /// A field read from the elements of an AllInOne list rule, where `$1`…`$99` name the match's groups.
    case groupField
}

/// The parsed form of a rule.
indirect enum RuleBody: Sendable {
    case empty
    /// `a || b`: the first part with a non-empty result.
    case firstNonEmpty([RuleBody])
    /// `a && b`: all parts' results, concatenated.
    case concatenation([RuleBody])
    /// `a %% b`: the parts' results interleaved (a1, b1, a2, b2, …).
    case interleaving([RuleBody])
    case xpath(XPathRule)
    /// A rule without a dialect prefix: Legado reads it as JSONPath (`$.` + the rule) on a JSON answer or
    /// element, and as JSoup (here its XPath translation) on a page.
    case byContent(html: RuleBody, json: RuleBody)
    /// `:regex1&&regex2`: each regex runs over the previous one's matches.
    case allInOne([RegexPattern])
    /// Literal text with `{{rule}}`, `@get:{key}` and (under AllInOne) `$n` pieces.
    case template([TemplatePiece])
    /// `rule##regex##replacement` (and `###` for the first match only).
    case replace(RuleBody, RegexReplacement)
    /// The context's raw text (an empty rule part before `##`).
    case rawText
    /// A rule whose text contains `@get:{key}`: substituted, then compiled (and cached) when evaluated.
    case dynamic(DynamicRule)
    /// JSONPath (`$.data.list[*]`, `@Json:`) over a JSON answer.
    case jsonPath(JSONPath)
    /// Text with `{$.path}` pieces, read from a JSON answer.
    case jsonTemplate(JSONTemplate)
    /// Rule and JavaScript steps run in turn, each on what the previous one produced (Legado's
    /// `rule@js:code` and `a<js>code</js>b`); `kind` says whether the rule steps read strings or elements.
    case chain([ChainStep], kind: RuleKind)
}

/// One step of a `RuleBody.chain`.
enum ChainStep: Sendable {
    /// A rule in any other dialect.
    case rule(RuleBody)
    /// JavaScript.
    case script(ScriptSnippet)
    /// JavaScript whose code holds `{{…}}` or `@get:{key}`: each is replaced by its value first (a `{{…}}`
    /// of JavaScript sees the same `result`), then the code runs, as Legado makes up a JavaScript rule before
    /// running it. The snippet is the code with every hole written `0`: what is checked when the source loads.
    case templatedScript(ScriptSnippet, [TemplatePiece])
}

/// A compiled XPath and what to take from the nodes it selects.
struct XPathRule: Sendable {
    let expression: XPathExpression
    let extractor: XPathExtractor
    /// The same path for the direct tree walk, when it is simple enough (most field rules are).
    let simple: SimpleXPath?
    /// For rules translated from Legado's JSoup dialect or `@css:`: what to take from the elements.
    var jsoup: JSoupExtractor? = nil
    /// Whether the translated rule lists its elements in reverse document order (`[-1:0]`).
    var reversed = false

    /// Whether `texts(at:)` reads its values straight off the nodes a simple path selects.
    var readsNodeValues: Bool { simple != nil && (extractor == .value || extractor == .allText) }

    /// Evaluates with the context node, preferring the direct walk.
    func evaluate(at node: HTMLNode) throws(XPathError) -> XPathValue {
        if let simple, let nodes = simple.evaluate(at: node) { return .nodes(nodes) }
        let value = try expression.evaluate(at: node)
        if reversed, case .nodes(let nodes) = value { return .nodes(nodes.reversed()) }
        return value
    }

    /// The rule's values at `node`: straight from libxml2's nodes when the path is simple, without making
    /// node values first. Node values, attributes and XPath strings are text; `html()`, `outerHtml()` and
    /// JSoup's `html`/`all` are markup.
    /// With `picturesAgainst` (chapter content of a text source), an element's value keeps its pictures as
    /// image lines resolved against that URL.
    func texts(at node: HTMLNode, picturesAgainst baseURL: String? = nil) throws(XPathError) -> [RuleText] {
        if baseURL == nil, readsNodeValues, let values = simple?.stringValues(at: node) {
            return values.map { RuleText($0, isMarkup: false) }
        }
        switch try evaluate(at: node) {
        case .nodes(let nodes):
            if let jsoup { return jsoup.values(from: nodes).map { RuleText($0, isMarkup: jsoup.yieldsMarkup) } }
            if let baseURL, extractor == .value || extractor == .allText {
                return nodes.map { node in
                    node.kind == .element
                        ? RuleText(HTMLTextFormatter.contentText(of: node, baseURL: baseURL), isMarkup: false)
                        : RuleText(extractor.extract(from: node), isMarkup: false)
                }
            }
            return nodes.map { RuleText(extractor.extract(from: $0), isMarkup: extractor.yieldsMarkup) }
        case .string(let text): return [RuleText(text, isMarkup: false)]
        case .number(let number): return [RuleText(Self.format(number), isMarkup: false)]
        case .boolean(let value): return [RuleText(value ? "true" : "false", isMarkup: false)]
        }
    }

    private static func format(_ number: Double) -> String {
        if number.isFinite, number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}

/// JsoupXpath's extra final steps, which XPath 1.0 cannot express.
enum XPathExtractor: String, Sendable {
    /// The node's value: attribute value, text, or an element's visible text.
    case value
    /// `allText()`: an element's whole visible text.
    case allText
    /// `html()`: an element's inner markup.
    case html
    /// `outerHtml()`: an element's markup including its tag.
    case outerHTML
}

/// One piece of a template rule.
enum TemplatePiece: Sendable {
    case literal(String)
    case rule(RuleBody)
    case variable(String)
    case group(Int)
}

/// `##regex##replacement` with Java-style `$1` references.
struct RegexReplacement: Sendable {
    let pattern: RegexPattern
    let replacement: JavaReplacement
    let firstOnly: Bool
}
