import BookRuleJSON
import BookRuleRegex

/// A JSONPath (or a `{$.…}` template piece) that cannot be compiled.
public enum JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `expression` is not valid; `offset` counts Unicode scalars from the start of `expression`.
    case invalid(expression: String, message: String, offset: Int)

    /// The expression that failed to compile.
    public var expression: String {
        switch self { case .invalid(let expression, _, _): expression }
    }

    /// What is wrong, without the expression or the offset.
    public var message: String {
        switch self { case .invalid(_, let message, _): message }
    }

    /// Where the problem is, in Unicode scalars from the start of `expression`.
    public var offset: Int {
        switch self { case .invalid(_, _, let offset): offset }
    }

    /// `invalid JSONPath "$.data[": expected an index, … after '[' at offset 7`.
    public var description: String {
        "invalid JSONPath \"\(expression)\": \(message) at offset \(offset)"
    }
}
