import BookRuleRules

/// Why a snippet (or a source's `jsLib`) failed. Every case names the field, so the user can find it.
public enum ScriptError: Error, Sendable, Equatable, CustomStringConvertible, FieldNamingError {
    /// The snippet does not parse.
    case syntax(field: String, ScriptSyntaxError)
    /// The snippet threw (a JavaScript error, or a helper that failed or was refused).
    case thrown(field: String, message: String, line: Int?)
    /// The snippet used more CPU time than the limit allows (an endless loop, usually).
    case timeLimit(field: String, limit: Duration)
    /// The snippet's heap grew past the limit.
    case heapLimit(field: String, limit: Int)
    /// Snippets called rules with snippets more deeply than allowed.
    case nestedTooDeeply(field: String, limit: Int)
    /// The JavaScript engine could not start.
    case engineUnavailable(String)

    /// The field the error is about ("" for `engineUnavailable`).
    public var field: String {
        switch self {
        case .syntax(let field, _), .thrown(let field, _, _), .timeLimit(let field, _), .heapLimit(let field, _),
             .nestedTooDeeply(let field, _):
            return field
        case .engineUnavailable:
            return ""
        }
    }

    /// A sentence naming the field and what to do.
    public var description: String {
        field.isEmpty ? reason : "\(field): \(reason)"
    }

    /// What went wrong and what to do, without the field.
    public var reason: String {
        switch self {
        case .syntax(_, let error):
            return "JavaScript does not parse at \(error)"
        case .thrown(_, let message, let line):
            return "JavaScript failed\(line.map { " at line \($0)" } ?? ""): \(message)"
        case .timeLimit(_, let limit):
            return "JavaScript ran longer than its \(limit) CPU time limit (an endless loop?) and was stopped"
        case .heapLimit(_, let limit):
            return "JavaScript used more than its \(limit / 1_048_576) MiB heap limit and was stopped"
        case .nestedTooDeeply(_, let limit):
            return "JavaScript called rules with JavaScript more than \(limit) levels deep"
        case .engineUnavailable(let reason):
            return "the JavaScript engine could not start: \(reason)"
        }
    }

    /// Whether the CPU time or heap limit stopped the script.
    public var hitLimit: Bool {
        switch self {
        case .timeLimit, .heapLimit: true
        default: false
        }
    }
}
