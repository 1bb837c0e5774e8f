/// An XPath expression that libxml2 rejected.
public enum XPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expression does not compile; `offset` is where libxml2 stopped reading (0-based, in bytes).
    case invalid(expression: String, message: String, offset: Int)
    /// The expression compiled but failed while running (an unknown function, a type error).
    case evaluation(expression: String, message: String)

    public var description: String {
        switch self {
        case .invalid(let expression, let message, let offset):
            return "invalid XPath \"\(expression)\": \(message) at offset \(offset)"
        case .evaluation(let expression, let message):
            return "XPath \"\(expression)\" failed: \(message)"
        }
    }
}
