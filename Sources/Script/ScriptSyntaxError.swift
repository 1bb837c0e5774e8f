/// Why a snippet does not parse: where, and the engine's message.
public struct ScriptSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line in the snippet (1-based).
    public var line: Int
    /// The column in that line (1-based), when the engine reports it.
    public var column: Int?
    /// JavaScriptCore's message, e.g. `SyntaxError: Unexpected token ')'`.
    public var message: String

    /// Creates a syntax error.
    public init(line: Int, column: Int?, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    /// "line 2, column 7: SyntaxError: …".
    public var description: String {
        "line \(line)\(column.map { ", column \($0)" } ?? ""): \(message)"
    }
}
