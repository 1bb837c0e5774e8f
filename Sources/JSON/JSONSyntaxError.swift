/// A JSON document could not be parsed. Names the exact place
/// (line and column) and says what was wrong, so users can fix hand-written
/// book source files, for example
/// `line 3, column 17: expected ',' or '}' after an object member, found '"'`.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the problem is (for an unterminated string or comment: where it starts).
    public let location: SourceLocation
    /// What is wrong, without the location, for example `invalid escape '\q' in string`.
    public let message: String

    /// Creates an error at `location` with `message`.
    public init(location: SourceLocation, message: String) {
        self.location = location
        self.message = message
    }

    /// The location followed by the message: `"line 3, column 17: <message>"`.
    public var description: String {
        "\(location): \(message)"
    }
}
