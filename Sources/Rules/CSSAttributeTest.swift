/// How an attribute's value is tested (values already lower-cased where jsoup compares case-insensitively).
enum CSSAttributeTest: Sendable {
    case exists
    /// `=`: the element's value, trimmed, equals (ignoring case).
    case equals(String)
    /// `!=`: the element's value (empty when absent) does not equal (ignoring case).
    case notEquals(String)
    case prefix(String)
    case suffix(String)
    case substring(String)
    /// `~=` with a pattern of literal alternatives (`^a|b$`, `(a|b)`); `ignoringCase` for `(?i)` (ASCII).
    case pattern([CSSLiteralAlternative], ignoringCase: Bool)
    /// `~=` with any other Java regular expression (validated when parsed), searched in the value by `br:match`.
    case regex(String)
}
