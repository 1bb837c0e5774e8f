extension CSSParser {
    // MARK: Tokens

    @discardableResult
    mutating func skipWhitespace() -> Bool {
        let start = position
        while position < scalars.count, isWhitespace(scalars[position]) { position += 1 }
        return position > start
    }

    func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    /// Java's `Character.isLetterOrDigit`.
    func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
            return true
        default:
            return false
        }
    }

    mutating func consumeIdentifier() -> String {
        let start = position
        while position < scalars.count, isWordScalar(scalars[position]) || scalars[position] == "-" || scalars[position] == "_" {
            position += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    mutating func consumeElementName() -> String {
        let start = position
        while position < scalars.count {
            let scalar = scalars[position]
            let startsNamespace = scalar == "*" && position + 1 < scalars.count && scalars[position + 1] == "|"
            guard isWordScalar(scalar) || startsNamespace || scalar == "|" || scalar == "_" || scalar == "-" else { break }
            position += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    /// The text between `open` and its matching `close` (quotes and backslash escapes respected), consuming
    /// both; `position` must be at `open` or at whitespace before it.
    mutating func consumeBalanced(open: Unicode.Scalar, close: Unicode.Scalar) throws(CSSTranslationError) -> String {
        let start = position
        guard position < scalars.count, scalars[position] == open else {
            throw CSSTranslationError(piece(from: max(0, start - 1)), "'\(Character(open))' is missing")
        }
        var depth = 0
        var inSingle = false
        var inDouble = false
        var index = position
        var contentStart = position + 1
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" {
                index += 2
                continue
            }
            if scalar == "'" && !inDouble {
                inSingle.toggle()
            } else if scalar == "\"" && !inSingle {
                inDouble.toggle()
            } else if !inSingle && !inDouble {
                if scalar == open {
                    depth += 1
                    if depth == 1 { contentStart = index + 1 }
                } else if scalar == close {
                    depth -= 1
                    if depth == 0 {
                        position = index + 1
                        return String(String.UnicodeScalarView(scalars[contentStart..<index]))
                    }
                }
            }
            index += 1
        }
        throw CSSTranslationError(rest(from: start), "'\(Character(open))' is not closed")
    }

    func piece(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<min(position, scalars.count)]))
    }

    func rest(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[min(start, scalars.count)...]))
    }
}
