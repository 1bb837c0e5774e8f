/// Why replace rules could not be read, kept or run.
public enum ReplaceRuleError: Error, Equatable, CustomStringConvertible {
    /// A rules file is not JSON (`location` is `line L, column C`).
    case malformedJSON(path: String, location: String, message: String)
    /// A rules file is JSON but not a rule or a list of rules.
    case notRules(path: String, found: String)
    /// One rule of a file is unusable (`path` is `file[index]`, `field` the JSON key).
    case invalidRule(path: String, field: String, reason: String)
    /// A rule's regular expression does not compile.
    case invalidPattern(rule: String, reason: String)
    /// A rules file to import cannot be read (missing, not a regular file, too large).
    case unreadable(path: String, reason: String)
    /// The rules file beside the library cannot be read or written.
    case cannotStore(path: String, reason: String)
    /// `remove N` named no rule.
    case noSuchRule(number: Int, count: Int)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case let .malformedJSON(path, location, message):
            return "\(path): \(location): \(message)"
        case let .notRules(path, found):
            return "\(path): expected a replace rule object or an array of them (Legado's replaceRule JSON), found \(found)"
        case let .invalidRule(path, field, reason):
            return "\(path).\(field): \(reason)"
        case let .invalidPattern(rule, reason):
            return "replace rule \"\(rule)\": \(reason)"
        case let .unreadable(path, reason):
            return "\(path): cannot be read: \(reason)"
        case let .cannotStore(path, reason):
            return "\(path): cannot keep the replace rules (\(reason)); check the library directory's permissions"
        case let .noSuchRule(number, count):
            return "there is no replace rule \(number) (the library has \(count); see `bookrule rules list`)"
        }
    }
}
