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
}
