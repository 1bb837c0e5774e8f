/// A replacement template with the semantics of Java's `Matcher.replaceAll`, parsed once and expanded
/// for every match.
///
/// Book sources are written for a Java/Kotlin engine, so their replacement strings follow Java:
/// - `$n` inserts capture group n. As in Java, the first digit is always part of the reference and
///   further digits are taken only while the number stays ≤ the pattern's capture count, so with one
///   group `$12` is group 1 followed by a literal "2". The template is parsed into pieces at `init`
///   and this digit rule is resolved at `expand` time against the match's capture count
///   (`match.groups.count - 1`), so one parsed template works with any pattern.
/// - `${name}` inserts the named group `name`.
/// - `\x` inserts `x` literally (so `\$` is a dollar sign and `\\` a backslash).
///
/// Where Java throws, this type is lenient, because community sources contain stray `$` and `\`:
/// - a `$` not followed by a digit or a well-formed `${name}`, and a trailing `$` or `\`, are literal;
/// - a reference to a group the pattern does not have (`$3` with two groups, `${nope}`) stays in the
///   output as written, so the mistake is visible rather than silently dropped;
/// - a reference to a group that exists but did not take part in the match expands to "".
public struct JavaReplacement: Sendable, Equatable {
    /// One parsed part of the template.
    enum Piece: Sendable, Equatable {
        /// Text copied as is (escapes already resolved).
        case literal(String)
        /// `$` followed by these ASCII digits (at least one); how many of them form the group number
        /// depends on the capture count, see the type's documentation.
        case number(digits: [UInt8])
        /// `${name}`.
        case named(String)
    }

    /// The replacement string as written in the rule.
    public let template: String

    /// The parsed pieces, adjacent literals merged.
    let pieces: [Piece]

    /// The replacement that deletes each match.
    public static let empty = JavaReplacement("")

    /// Parses `template`; parsing never fails (see the type's documentation for the lenient cases).
    public init(_ template: String) {
        self.template = template
        self.pieces = Self.parse(template)
    }

    /// Whether the template has no group references, so every match expands to the same text.
    var isLiteral: Bool {
        pieces.allSatisfy { if case .literal = $0 { true } else { false } }
    }

    /// The text that replaces `match`.
    public func expand(_ match: RegexMatch) -> String {
        var out = ""
        expand(match, into: &out)
        return out
    }

    /// Appends the text that replaces `match` to `out`.
    func expand(_ match: RegexMatch, into out: inout String) {
        let captureCount = match.groups.count - 1
        for piece in pieces {
            switch piece {
            case .literal(let text):
                out += text
            case .number(let digits):
                guard let first = digits.first, Int(first - 0x30) <= captureCount else {
                    // No such group: keep "$n…" as written.
                    out += "$"
                    out += String(decoding: digits, as: UTF8.self)
                    continue
                }
                var group = Int(first - 0x30)
                var used = 1
                while used < digits.count {
                    let longer = group * 10 + Int(digits[used] - 0x30)
                    if longer > captureCount { break }
                    group = longer
                    used += 1
                }
                out += match[group] ?? ""
                out += String(decoding: digits[used...], as: UTF8.self)
            case .named(let name):
                if let group = match.groupNames[name] {
                    out += match[group] ?? ""
                } else {
                    out += "${\(name)}"
                }
            }
        }
    }

    /// Splits a template into pieces.
    private static func parse(_ template: String) -> [Piece] {
        var pieces: [Piece] = []
        var literal = String.UnicodeScalarView()
        func flush() {
            if !literal.isEmpty {
                pieces.append(.literal(String(literal)))
                literal = String.UnicodeScalarView()
            }
        }

        let scalars = Array(template.unicodeScalars)
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c == "\\" {
                if i + 1 < scalars.count {
                    literal.append(scalars[i + 1])
                    i += 2
                } else {
                    literal.append(c)  // trailing backslash: Java throws, we keep it
                    i += 1
                }
                continue
            }
            guard c == "$", i + 1 < scalars.count else {
                literal.append(c)  // ordinary character, or trailing "$"
                i += 1
                continue
            }
            let next = scalars[i + 1]
            if isASCIIDigit(next) {
                var digits: [UInt8] = []
                var j = i + 1
                while j < scalars.count, isASCIIDigit(scalars[j]) {
                    digits.append(UInt8(scalars[j].value))
                    j += 1
                }
                flush()
                pieces.append(.number(digits: digits))
                i = j
            } else if next == "{", let close = scalars[(i + 2)...].firstIndex(of: "}"),
                close > i + 2, scalars[(i + 2)..<close].allSatisfy(isNameScalar),
                !isASCIIDigit(scalars[i + 2])
            {
                flush()
                var name = String.UnicodeScalarView()
                name.append(contentsOf: scalars[(i + 2)..<close])
                pieces.append(.named(String(name)))
                i = close + 1
            } else {
                literal.append(c)  // stray "$": Java throws, we keep it
                i += 1
            }
        }
        flush()
        return pieces
    }

    private static func isASCIIDigit(_ s: Unicode.Scalar) -> Bool {
        s.value >= 0x30 && s.value <= 0x39
    }

    /// Characters PCRE2 accepts in a group name.
    private static func isNameScalar(_ s: Unicode.Scalar) -> Bool {
        s == "_" || isASCIIDigit(s) || s.properties.isAlphabetic
    }
}
