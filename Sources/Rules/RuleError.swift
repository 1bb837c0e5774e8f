import BookRuleDocument
import BookRuleRegex

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
    /// Whether the rule was stopped by one of the limits untrusted rules run under (a script's CPU time or
    /// heap, a regex's backtracking, an XPath's operations) rather than failing on its own: the same rule is
    /// then not run again on the rest of the list (docs/reliability.md, "Limits").
    public var hitLimit: Bool

    /// Creates a rule error.
    public init(field: String, dialect: RuleDialect?, reason: String, rule: String, hitLimit: Bool = false) {
        self.field = field
        self.dialect = dialect
        self.reason = reason
        self.rule = rule
        self.hitLimit = hitLimit
    }

    /// The rule `rule` at `field` failed with `error` (an XPath's, a regex's, a script's): a `RuleError`
    /// itself is kept as it is; a script's error, which names its field, is not made to name it twice.
    public init(wrapping error: any Error, field: String, dialect: RuleDialect?, rule: String) {
        if let error = error as? RuleError {
            self = error
        } else if let named = error as? any FieldNamingError {
            self.init(field: field, dialect: dialect, reason: named.field == field ? named.reason : named.description,
                      rule: rule, hitLimit: named.hitLimit)
        } else {
            let hitLimit = switch error {
            case XPathError.operationLimit, XPathError.regexLimit, RegexError.matchLimitExceeded: true
            default: false
            }
            self.init(field: field, dialect: dialect, reason: "\(error)", rule: rule, hitLimit: hitLimit)
        }
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

/// An error of a later layer (a script's) that already names the field it is about: a rule wrapping it keeps
/// only its `reason`, so the message does not name the field twice.
public protocol FieldNamingError: Error, CustomStringConvertible {
    /// The field the error names.
    var field: String { get }
    /// The error without the field.
    var reason: String { get }
    /// Whether a limit (CPU time, heap) stopped the work.
    var hitLimit: Bool { get }
}
