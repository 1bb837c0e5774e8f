/// A position in a source text, used to point users at the exact spot of a
/// problem in a hand-written file (for example a book source JSON file).
///
/// Both numbers are 1-based. `column` is counted in Unicode scalars, not bytes
/// or grapheme clusters, so a CJK character such as "书" advances it by 1.
/// A line ends at LF, CR or CRLF (CRLF counts as one line break).
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The 1-based line number.
    public let line: Int
    /// The 1-based column, counted in Unicode scalars from the start of the line.
    public let column: Int

    /// Creates a location from a 1-based line and a 1-based column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// Human-readable form used in error messages, for example `"line 3, column 5"`.
    public var description: String {
        "line \(line), column \(column)"
    }
}
