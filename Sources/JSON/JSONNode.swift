/// A JSON value together with where it was written, so that later stages
/// (for example type checks on a book source) can report errors like
/// `"[3].ruleToc at line 40, column 12: expected an object or a JSON string"`.
///
/// Equality compares the values only and ignores `location`: two documents
/// that hold the same data but are formatted differently compare equal.
public struct JSONNode: Sendable, Equatable {
    /// The parsed value.
    public var value: JSONValue
    /// Location of the value's first character (the opening quote, bracket,
    /// brace, sign, digit or letter).
    public var location: SourceLocation

    /// Creates a node from a value and the location of its first character.
    public init(_ value: JSONValue, location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// Compares the values only; locations are ignored (see the type documentation).
    public static func == (lhs: JSONNode, rhs: JSONNode) -> Bool {
        lhs.value == rhs.value
    }
}
