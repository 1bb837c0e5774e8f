import BookRuleJSON
import BookRuleRules

/// Something wrong with one field of a loaded source: a rule that does not compile or cannot stand where it is,
/// a script that fails its load-time check, a value of the wrong type. A source with problems still loads; the steps that need the broken
/// field refuse to run and say why.
public struct SourceProblem: Sendable, Equatable, CustomStringConvertible {
    /// The field path, e.g. `ruleToc.chapterList` (prefixed with `[3].` for the fourth source of an array file).
    public var field: String
    /// Where the field's value starts in the file, when known.
    public var location: SourceLocation?
    /// The rule's dialect, when the problem is about a rule.
    public var dialect: RuleDialect?
    /// What is wrong.
    public var reason: String

    /// Creates a problem.
    public init(field: String, location: SourceLocation?, dialect: RuleDialect? = nil, reason: String) {
        self.field = field
        self.location = location
        self.dialect = dialect
        self.reason = reason
    }

    /// `ruleToc.chapterList: expected a rule string, found array`, with the dialect in parentheses for rules.
    public var description: String {
        RuleError(field: field, dialect: dialect, reason: reason, rule: "").description
    }
}
