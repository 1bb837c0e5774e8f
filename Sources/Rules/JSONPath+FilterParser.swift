import BookRuleJSON
import BookRuleRegex

extension JSONPath.Parser {
    // MARK: Filters

    mutating func parseOr() throws(JSONPathError) -> JSONPath.Filter {
        var left = try parseAnd()
        while true {
            skipSpaces()
            guard consume("||") else { return left }
            left = .or(left, try parseAnd())
        }
    }

    mutating func parseAnd() throws(JSONPathError) -> JSONPath.Filter {
        var left = try parseUnary()
        while true {
            skipSpaces()
            guard consume("&&") else { return left }
            left = .and(left, try parseUnary())
        }
    }

    mutating func parseUnary() throws(JSONPathError) -> JSONPath.Filter {
        skipSpaces()
        guard position < end else { throw failure("the filter ends too early", at: position) }
        if chars[position] == "!" && peek(1) != "=" {
            position += 1
            return .not(try parseUnary())
        }
        if chars[position] == "(" {
            let open = position
            position += 1
            let inner = try parseOr()
            skipSpaces()
            guard position < end, chars[position] == ")" else {
                let found = position < end ? ", found " + Self.describe(chars[position]) : ""
                throw failure("expected ')' to close the '(' at offset \(open)\(found)", at: position)
            }
            position += 1
            return inner
        }
        return try parseComparison()
    }

    mutating func parseComparison() throws(JSONPathError) -> JSONPath.Filter {
        let start = position
        let left = try parseOperand()
        skipSpaces()
        guard let comparison = try parseComparisonOperator() else {
            if case .path(let query, let fromRoot) = left { return .exists(query, fromRoot: fromRoot) }
            throw failure("a literal is not a condition; compare it with an operator such as '=='", at: start)
        }
        skipSpaces()
        let right = try parseOperand()
        return .compare(left, comparison, right)
    }

    mutating func parseComparisonOperator() throws(JSONPathError) -> JSONPath.Comparison? {
        guard position < end else { return nil }
        let symbols: [(String, JSONPath.Comparison)] = [
            ("===", .strictEqual), ("!==", .strictNotEqual), ("==", .equal), ("!=", .notEqual),
            ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=~", .matches), ("<", .less), (">", .greater),
        ]
        for (symbol, comparison) in symbols where consume(symbol) {
            return comparison
        }
        if chars[position] == "=" {
            throw failure("use '==' to compare", at: position)
        }
        guard Self.isLetter(chars[position]) else { return nil }
        let start = position
        while position < end && Self.isLetter(chars[position]) { position += 1 }
        let word = String(String.UnicodeScalarView(chars[start..<position])).lowercased()
        switch word {
        case "in": return .isIn
        case "nin": return .notIn
        case "contains": return .contains
        case "size": return .size
        case "empty": return .empty
        case "subsetof": return .subsetOf
        case "anyof": return .anyOf
        case "noneof": return .noneOf
        default: throw failure("unknown filter operator '\(word)'", at: start)
        }
    }

    mutating func parseOperand() throws(JSONPathError) -> JSONPath.Operand {
        skipSpaces()
        guard position < end else { throw failure("expected a value, found the end", at: position) }
        let character = chars[position]
        switch character {
        case "@", "$":
            position += 1
            var steps: [JSONPath.Step] = []
            try parseSteps(into: &steps, inFilter: true)
            return .path(JSONPath.Query(steps: steps), fromRoot: character == "$")
        case "'", "\"":
            return .literal(.string(try parseQuoted()))
        case "-", "0"..."9":
            return .literal(.number(try parseNumber()))
        case "/":
            return .literal(.pattern(try parseRegex()))
        case "[", "{":
            return .literal(try parseJSONLiteral())
        default:
            let start = position
            while position < end && Self.isLetter(chars[position]) { position += 1 }
            switch String(String.UnicodeScalarView(chars[start..<position])) {
            case "true": return .literal(.bool(true))
            case "false": return .literal(.bool(false))
            case "null": return .literal(.null)
            default:
                throw failure(
                    "expected a value (an @ or $ path, a quoted string, a number, true, false, null, "
                        + "/regex/ or a [list]), found \(Self.describe(character))",
                    at: start)
            }
        }
    }

    mutating func parseNumber() throws(JSONPathError) -> String {
        let start = position
        if chars[position] == "-" { position += 1 }
        let digitsStart = position
        while position < end && Self.isDigit(chars[position]) { position += 1 }
        guard position > digitsStart else { throw failure("expected a number after '-'", at: start) }
        if position < end && chars[position] == "." {
            position += 1
            let fraction = position
            while position < end && Self.isDigit(chars[position]) { position += 1 }
            guard position > fraction else { throw failure("expected digits after '.'", at: position) }
        }
        if position < end && (chars[position] == "e" || chars[position] == "E") {
            position += 1
            if position < end && (chars[position] == "+" || chars[position] == "-") { position += 1 }
            let exponent = position
            while position < end && Self.isDigit(chars[position]) { position += 1 }
            guard position > exponent else { throw failure("expected digits in the exponent", at: position) }
        }
        return String(String.UnicodeScalarView(chars[start..<position]))
    }

    /// `/pattern/flags`, compiled (PCRE2) to match the whole input as Java's `Matcher.matches()` does.
    mutating func parseRegex() throws(JSONPathError) -> RegexPattern {
        let start = position
        position += 1
        while position < end && chars[position] != "/" {
            position += chars[position] == "\\" ? 2 : 1
        }
        guard position < end else { throw failure("the regex starting here is not closed with '/'", at: start) }
        let body = String(String.UnicodeScalarView(chars[(start + 1)..<position]))
        position += 1
        var options = ""
        var extended = false
        while position < end && Self.isLetter(chars[position]) {
            switch chars[position] {
            case "i": options += "i"
            case "m": options += "m"
            case "s": options += "s"
            case "x":
                options += "x"
                extended = true
            case "u", "U", "d": break
            default:
                throw failure("unknown regex flag '\(chars[position])' (use i, m, s, x, u, U or d)", at: position)
            }
            position += 1
        }
        let prefix = (options.isEmpty ? "" : "(?\(options))") + #"\A(?:"#
        let pattern = prefix + body + (extended ? "\n" : "") + #")\z"#
        do {
            return try RegexPattern(pattern)
        } catch let error as RegexError {
            if case .compile(_, let message, let offset) = error {
                let inBody = min(max(offset - prefix.unicodeScalars.count, 0), body.unicodeScalars.count)
                throw failure("invalid regex /\(body)/: \(message)", at: start + 1 + inBody)
            }
            throw failure("invalid regex /\(body)/: \(error)", at: start)
        } catch {
            throw failure("invalid regex /\(body)/: \(error)", at: start)
        }
    }

    /// A `[…]` or `{…}` literal, read as lenient JSON (single quotes allowed).
    mutating func parseJSONLiteral() throws(JSONPathError) -> JSONPath.FilterValue {
        let start = position
        var depth = 0
        var quote: Unicode.Scalar?
        while position < end {
            let character = chars[position]
            if let open = quote {
                if character == "\\" {
                    position += 1
                } else if character == open {
                    quote = nil
                }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "[" || character == "{" {
                depth += 1
            } else if character == "]" || character == "}" {
                depth -= 1
                if depth == 0 {
                    position += 1
                    break
                }
            }
            position += 1
        }
        guard depth == 0 else {
            throw failure("the \(Self.describe(chars[start])) literal starting here is not closed", at: start)
        }
        let text = String(String.UnicodeScalarView(chars[start..<position]))
        do throws(JSONSyntaxError) {
            return JSONPath.FilterValue(try JSONParser.parse(text, lenient: true).value)
        } catch {
            let offset = error.location.line == 1 ? start + error.location.column - 1 : start
            throw failure("invalid literal: \(error.message)", at: offset)
        }
    }

}
