import BookRuleJSON

/// Text with embedded JSONPath pieces, as Legado fills it from a JSON response: `{{$.path}}` pieces, or
/// `{$.path}` inner rules such as `https://x.com/book/{$.id}.html`. Compiled once, rendered many times.
///
/// A piece's value is what Legado's `AnalyzeByJSonPath.getString` gives (`JSONPath.string(from:)`): several
/// results joined with `"\n"` (Legado joins lists with line breaks, not commas). Inside a piece, `a && b`
/// joins the non-empty results of both with `"\n"` and `a || b` takes the first non-empty one; the first
/// operator found outside brackets, parentheses and quotes splits the piece, as in Legado.
///
/// The two forms follow Legado's two code paths:
/// - If the text holds any `{{…}}` piece (a `{{` closed by the next `}}`), only those are pieces (Legado
///   then treats the rule as a template, so a `{$.…}` beside them stays as written). Each is replaced by
///   its value, "" when nothing matches. The piece may carry an `@Json:` prefix.
/// - Otherwise each `{$.…}` (braces balanced, quotes respected) is a piece. As Legado's `innerRule`
///   does, a piece with a non-empty value is replaced by it, a piece whose value is empty stays as written,
///   and when no piece has a value the whole result is "".
///
/// Text without pieces renders as itself.
public struct JSONTemplate: Sendable {
    /// The template text as given to `init`.
    public let text: String
    private let pieces: [Piece]
    /// `{$.…}` form: empty pieces stay literal and an all-empty render gives "".
    private let innerRuleForm: Bool

    private enum Piece: Sendable {
        case literal(String)
        case rule(PieceRule, source: String)
    }

    /// A piece's body: one path, or parts joined by `&&` / `||`.
    private indirect enum PieceRule: Sendable {
        case path(JSONPath)
        case all([PieceRule])
        case first([PieceRule])

        func render(_ context: JSONValue) -> String {
            switch self {
            case .path(let path):
                return path.string(from: context)
            case .all(let parts):
                return parts.map { $0.render(context) }.filter { !$0.isEmpty }.joined(separator: "\n")
            case .first(let parts):
                for part in parts {
                    let value = part.render(context)
                    if !value.isEmpty { return value }
                }
                return ""
            }
        }
    }

    /// Finds and compiles the pieces of `text`.
    /// - Throws: `JSONPathError` for a piece that is not a valid JSONPath; the error's expression is the
    ///   piece's path and its offset counts within that path.
    public init(_ text: String) throws(JSONPathError) {
        self.text = text
        let scalars = Array(text.unicodeScalars)
        let doubleBraced = Self.doubleBracedRanges(scalars)
        var pieces: [Piece] = []
        var literalStart = 0
        func addLiteral(upTo end: Int) {
            if end > literalStart {
                pieces.append(.literal(Self.string(scalars[literalStart..<end])))
            }
        }
        if !doubleBraced.isEmpty {
            for range in doubleBraced {
                addLiteral(upTo: range.lowerBound)
                var body = Self.string(scalars[(range.lowerBound + 2)..<(range.upperBound - 2)])
                let trimmed = body.unicodeScalars.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
                if trimmed.count >= 6, String(String.UnicodeScalarView(trimmed.prefix(6))).lowercased() == "@json:" {
                    body = String(String.UnicodeScalarView(trimmed.dropFirst(6)))
                }
                let first = body.unicodeScalars.first { $0 != " " && $0 != "\t" && $0 != "\n" && $0 != "\r" }
                guard first == "$" || first == "@" else {
                    throw .invalid(
                        expression: body,
                        message: "{{…}} holds no JSONPath (JavaScript is not supported)", offset: 0)
                }
                pieces.append(.rule(try Self.compile(body), source: Self.string(scalars[range])))
                literalStart = range.upperBound
            }
            addLiteral(upTo: scalars.count)
            self.pieces = pieces
            self.innerRuleForm = false
            return
        }
        var index = 0
        while index + 2 < scalars.count {
            guard scalars[index] == "{", scalars[index + 1] == "$", scalars[index + 2] == ".",
                  let close = BalancedBraces.close(in: scalars, from: index)
            else {
                index += 1
                continue
            }
            addLiteral(upTo: index)
            let body = Self.string(scalars[(index + 1)..<close])
            pieces.append(.rule(try Self.compile(body), source: Self.string(scalars[index...close])))
            literalStart = close + 1
            index = close + 1
        }
        addLiteral(upTo: scalars.count)
        self.pieces = pieces
        self.innerRuleForm = true
    }

    /// Whether the text holds no piece (it renders as itself).
    public var isLiteral: Bool {
        !pieces.contains { if case .rule = $0 { true } else { false } }
    }

    /// The text with every piece replaced by its value read from `context`.
    public func render(_ context: JSONValue) -> String {
        guard !isLiteral else { return text }
        var out = ""
        var replacedAny = false
        for piece in pieces {
            switch piece {
            case .literal(let literal):
                out += literal
            case .rule(let rule, let source):
                let value = rule.render(context)
                if innerRuleForm && value.isEmpty {
                    out += source
                } else {
                    out += value
                    replacedAny = true
                }
            }
        }
        return innerRuleForm && !replacedAny ? "" : out
    }

    // MARK: Parsing

    private static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        String(String.UnicodeScalarView(scalars))
    }

    /// `{{…}}` pieces: each `{{` up to the next `}}` (Legado's `\{\{[\w\W]*?\}\}`).
    private static func doubleBracedRanges(_ scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index + 1 < scalars.count {
            guard scalars[index] == "{", scalars[index + 1] == "{" else {
                index += 1
                continue
            }
            var close = index + 2
            while close + 1 < scalars.count && !(scalars[close] == "}" && scalars[close + 1] == "}") {
                close += 1
            }
            guard close + 1 < scalars.count else { break }
            ranges.append(index..<(close + 2))
            index = close + 2
        }
        return ranges
    }

    /// Compiles a piece body, splitting it at top-level `&&` or `||` (the first one found decides, as for
    /// rules: `RuleScanner` skips brackets, parentheses, braces and quotes).
    private static func compile(_ body: String) throws(JSONPathError) -> PieceRule {
        let first = ["&&", "||"].compactMap { separator in
            RuleScanner.topLevelOccurrences(of: separator, in: body).first.map { (separator, $0) }
        }.min { $0.1 < $1.1 }
        guard let (separator, _) = first else { return .path(try JSONPath(body)) }
        var rules: [PieceRule] = []
        for part in RuleScanner.split(body, by: separator) {
            rules.append(try compile(part))
        }
        return separator == "&&" ? .all(rules) : .first(rules)
    }
}
