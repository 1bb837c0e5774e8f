/// An XPath expression that libxml2 rejected.
public enum XPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expression does not compile; `offset` is where libxml2 stopped reading (0-based, in bytes).
    case invalid(expression: String, message: String, offset: Int)
    /// The expression compiled but failed while running (an unknown function, a type error).
    case evaluation(expression: String, message: String)
    /// The evaluation took more than `limit` steps (`XPathExpression.operationLimit`) and was stopped: a
    /// predicate that scans the whole page for every node, say.
    case operationLimit(expression: String, limit: Int)
    /// A regular expression `br:match` ran (a translated `[attr~=regex]` or `:matches(regex)`) exceeded its
    /// backtracking limit (`RegexLimits`) and was stopped.
    case regexLimit(expression: String, pattern: String)

    public var description: String {
        switch self {
        case .invalid(let expression, let message, let offset):
            return "invalid XPath \"\(expression)\": \(message) at offset \(offset)"
        case .evaluation(let expression, let message):
            return "XPath \"\(expression)\" failed: \(message)"
        case .regexLimit(let expression, let pattern):
            return "XPath \"\(expression)\" was stopped: its regex \"\(pattern)\" exceeded the backtracking limit (rewrite it to avoid nested repetition)"
        case .operationLimit(let expression, let limit):
            return "XPath \"\(expression)\" was stopped after \(limit) steps, its operation limit (a predicate that searches the whole page from every node, like //li[//li], grows with a power of the page's size: make it relative, .//li)"
        }
    }
}
