/// The languages a rule string can be written in, detected in Legado's order (see docs/source-format.md).
public enum RuleDialect: String, Sendable, Equatable, CaseIterable, Codable {
    /// XPath 1.0 (`/…`, `//…` or `@XPath:`), run natively on libxml2.
    case xpath = "XPath"
    /// A list rule starting with `:`: regexes chained with `&&` over the page source.
    case allInOne = "AllInOne regex"
    /// `{{rule}}` pieces inside literal text.
    case template = "template"
    /// `$1`…`$99` group references, for field rules under an AllInOne list rule.
    case groupReference = "regex group"
    /// A rule with an empty rule part that only runs `##regex` on the raw text.
    case regex = "regex"
    /// `@CSS:` selectors, translated to XPath.
    case css = "CSS"
    /// Legado's default JSoup-segment syntax (`class.x@tag.a@href`, or `@@`), translated to XPath.
    case jsoup = "JSoup"
    /// JSONPath (`$.a.b`, `@Json:`).
    case jsonPath = "JSONPath"
    /// `@js:`, `<js>…</js>` or `{{…}}` that is not a rule: run on JavaScriptCore (`BookRuleScript`).
    case javaScript = "JavaScript"

    /// Whether bookrule can evaluate rules of this dialect.
    public var isSupported: Bool {
        switch self {
        case .xpath, .allInOne, .template, .groupReference, .regex, .jsonPath, .css, .jsoup, .javaScript: return true
        }
    }

    /// Why a rule detected as this dialect cannot run where it stands, in the words users see (every dialect
    /// runs; this is for a detection the parser does not expect, such as a group reference outside an
    /// AllInOne list).
    package var unsupportedReason: String {
        "a \(rawValue) rule cannot stand here"
    }
}
