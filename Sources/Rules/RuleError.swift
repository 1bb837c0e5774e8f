/// A rule that cannot be used, named by its field path so an author can find it.
public struct RuleError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the rule sits in the source, e.g. `ruleToc.chapterList`.
    public var field: String
    /// The dialect the rule was detected as, when known.
    public var dialect: RuleDialect?
    /// What is wrong, including libxml2's or PCRE2's message and offset where they gave one.
    public var reason: String
    /// The rule text as written.
    public var rule: String

    /// Creates a rule error.
    public init(field: String, dialect: RuleDialect?, reason: String, rule: String) {
        self.field = field
        self.dialect = dialect
        self.reason = reason
        self.rule = rule
    }

    /// `ruleToc.chapterList: a regex group rule cannot stand here`, or
    /// `ruleToc.chapterList (XPath): invalid XPath "//a[": Invalid predicate at offset 4`.
    public var description: String {
        if let dialect {
            return "\(field) (\(dialect.rawValue)): \(reason)"
        }
        return "\(field): \(reason)"
    }
}
