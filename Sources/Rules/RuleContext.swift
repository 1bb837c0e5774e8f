import BookRuleDocument
import BookRuleJSON
import BookRuleRegex

/// What a rule is evaluated against: a page or one of its elements, one match of an AllInOne regex, or
/// plain text.
public enum RuleContext: Sendable {
    /// A document or an element of one.
    case node(HTMLNode)
    /// One match of an AllInOne list rule; field rules read its groups as `$1`…`$99`.
    case match(RegexMatch)
    /// Text, e.g. an AllInOne match handed to an XPath rule, or a content string for `replaceRegex`.
    case text(String)
    /// A JSON value: an API answer, or one element of a JSONPath list rule.
    case json(JSONValue)

    /// The raw text a `##regex` with an empty rule part, or an AllInOne regex, runs on: the page source, an
    /// element's markup, the whole match, or the text itself.
    var rawText: String {
        switch self {
        case .node(let node):
            return node.kind == .document ? node.document.sourceText : node.outerHTML
        case .match(let match):
            return match[0] ?? ""
        case .text(let text):
            return text
        case .json(let value):
            return value.ruleText
        }
    }

    /// Whether `rawText` is markup (page source, an element's markup, a regex match over it, JSON) rather
    /// than text already read off the DOM (an XPath string, a chapter's text for `replaceRegex`).
    var rawTextIsMarkup: Bool {
        if case .text = self { return false }
        return true
    }

    /// Whether Legado would read a rule without a dialect prefix as JSONPath here: a JSON value, a JSON
    /// answer, or text that starts like JSON (`{` or `[`).
    var isJSON: Bool {
        switch self {
        case .json: return true
        case .node(let node): return node.kind == .document && node.document.json != nil
        case .text(let text):
            let first = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
            return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
        case .match: return false
        }
    }

    /// A JSON value to run JSONPath on: the value itself, or the text parsed as JSON (nil when it is not).
    var jsonValue: JSONValue? {
        switch self {
        case .json(let value): return value
        case .node(let node): return node.document.json ?? (try? JSONParser.parse(rawText))?.value
        case .match, .text: return (try? JSONParser.parse(rawText))?.value
        }
    }

    /// A node to run XPath on: the node itself, or the text parsed as an HTML fragment.
    func xpathNode(baseURL: String) throws -> HTMLNode {
        switch self {
        case .node(let node):
            return node
        case .match, .text, .json:
            let decision = CharsetDecision(charset: "UTF-8", reason: .validUTF8)
            return try HTMLDocument(bytes: Array(rawText.utf8), url: baseURL, charset: decision).root
        }
    }
}

extension HTMLDocument {
    /// What page-level rules start from: the JSON value for JSON answers, else the document node.
    public var rootContext: RuleContext {
        json.map(RuleContext.json) ?? .node(root)
    }
}
