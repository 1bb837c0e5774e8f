import BookRuleJSON
import BookRuleRegex

extension JSONPath {
    struct Parser {
        let expression: String
        let chars: [Unicode.Scalar]
        var position = 0
        var end: Int

        init(_ expression: String) {
            self.expression = expression
            self.chars = Array(expression.unicodeScalars)
            self.end = chars.count
        }

        // MARK: Paths

        mutating func parseExpression() throws(JSONPathError) -> Query {
            while position < end && Self.isSpace(chars[position]) { position += 1 }
            while end > position && Self.isSpace(chars[end - 1]) { end -= 1 }
            guard position < end else { throw failure("the path is empty", at: position) }
            var steps: [Step] = []
            if chars[position] == "$" || chars[position] == "@" {
                position += 1
            } else {
                // Jayway reads `data.list` as `$.data.list`.
                try parseChild(into: &steps, after: "a path without '$'", at: position, inFilter: false)
            }
            try parseSteps(into: &steps, inFilter: false)
            return Query(steps: steps)
        }

        /// Steps after `$`/`@` up to the end (top level) or to the first character that cannot continue
        /// a path (inside a filter).
        mutating func parseSteps(into steps: inout [Step], inFilter: Bool) throws(JSONPathError) {
            while position < end {
                let character = chars[position]
                if character == "." {
                    let dot = position
                    if peek(1) == "." {
                        position += 2
                        steps.append(.deepScan)
                        try parseChild(into: &steps, after: "'..'", at: dot, inFilter: inFilter)
                    } else {
                        position += 1
                        try parseChild(into: &steps, after: "'.'", at: dot, inFilter: inFilter)
                    }
                } else if character == "[" {
                    steps.append(try parseBracket())
                } else if inFilter {
                    return
                } else {
                    throw failure("expected '.' or '[', found \(Self.describe(character))", at: position)
                }
            }
        }

        /// What follows `.` or `..`: a name, `*`, or a bracket.
        mutating func parseChild(
            into steps: inout [Step], after what: String, at dot: Int, inFilter: Bool
        ) throws(JSONPathError) {
            guard position < end, !(inFilter && Self.endsFilterName(chars[position])) else {
                throw failure("a path must not end with \(what); add a name, '*' or '[…]'", at: dot)
            }
            let character = chars[position]
            if character == "." {
                throw failure("unexpected '.'", at: position)
            }
            if character == "[" {
                steps.append(try parseBracket())
                return
            }
            if character == "*" {
                position += 1
                if position < end {
                    let next = chars[position]
                    let fine = next == "." || next == "[" || (inFilter && Self.endsFilterName(next))
                    guard fine else {
                        throw failure("unexpected \(Self.describe(next)) after '*'", at: position)
                    }
                }
                steps.append(.wildcard)
                return
            }
            if Self.isSpace(character) {
                throw failure("a path must not end with \(what); add a name, '*' or '[…]'", at: dot)
            }
            let start = position
            while position < end {
                let next = chars[position]
                if next == "." || next == "[" { break }
                if next == "(" {
                    let name = String(String.UnicodeScalarView(chars[start..<position]))
                    throw failure("functions such as '\(name)()' are not supported", at: start)
                }
                if inFilter && Self.endsFilterName(next) { break }
                if Self.isSpace(next) {
                    throw failure("a name cannot contain spaces; write it in brackets: ['my name']", at: position)
                }
                position += 1
            }
            steps.append(.property([String(String.UnicodeScalarView(chars[start..<position]))]))
        }

        /// `[…]` at `position`: names, `*`, indexes, a slice or a filter.
        mutating func parseBracket() throws(JSONPathError) -> Step {
            let open = position
            position += 1
            skipSpaces()
            guard position < end else { throw failure("'[' is not closed", at: open) }
            let character = chars[position]
            switch character {
            case "'", "\"":
                var names: [String] = []
                while true {
                    skipSpaces()
                    guard position < end, chars[position] == "'" || chars[position] == "\"" else {
                        throw failure("expected a quoted name", at: position)
                    }
                    names.append(try parseQuoted())
                    skipSpaces()
                    if position < end && chars[position] == "," {
                        position += 1
                        continue
                    }
                    break
                }
                try expectClose(open)
                return .property(names)
            case "*":
                position += 1
                skipSpaces()
                try expectClose(open)
                return .wildcard
            case "?":
                position += 1
                let filter = try parseOr()
                skipSpaces()
                try expectClose(open)
                return .filter(filter)
            case "-", ":", "0"..."9":
                return try parseIndexes(open: open)
            default:
                throw failure(
                    "expected a quoted name, an index, a slice, '*' or '?(…)' after '[', found "
                        + Self.describe(character),
                    at: position)
            }
        }

        mutating func parseIndexes(open: Int) throws(JSONPathError) -> Step {
            var first: Int?
            if chars[position] != ":" { first = try parseInteger() }
            skipSpaces()
            if position < end && chars[position] == ":" {
                position += 1
                skipSpaces()
                var upper: Int?
                var step: Int?
                if startsInteger() {
                    upper = try parseInteger()
                    skipSpaces()
                }
                if position < end && chars[position] == ":" {
                    position += 1
                    skipSpaces()
                    if startsInteger() {
                        step = try parseInteger()
                        skipSpaces()
                    }
                }
                try expectClose(open)
                return .slice(start: first, end: upper, step: step)
            }
            var list: [Int] = first.map { [$0] } ?? []
            while position < end && chars[position] == "," {
                position += 1
                skipSpaces()
                list.append(try parseInteger())
                skipSpaces()
            }
            try expectClose(open)
            return .indexes(list)
        }

        func startsInteger() -> Bool {
            guard position < end else { return false }
            return chars[position] == "-" || Self.isDigit(chars[position])
        }

        mutating func parseInteger() throws(JSONPathError) -> Int {
            let start = position
            var negative = false
            if position < end && chars[position] == "-" {
                negative = true
                position += 1
            }
            guard position < end, Self.isDigit(chars[position]) else {
                let found = position < end ? Self.describe(chars[position]) : "the end"
                throw failure("expected an integer, found \(found)", at: position)
            }
            var value = 0
            while position < end, Self.isDigit(chars[position]) {
                let digit = Int(chars[position].value - 48)
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(digit)
                guard !overflow1 && !overflow2 && sum <= Int(Int32.max) else {
                    throw failure("the index is too large", at: start)
                }
                value = sum
                position += 1
            }
            return negative ? -value : value
        }

        mutating func expectClose(_ open: Int) throws(JSONPathError) {
            guard position < end else {
                throw failure("expected ']' to close the '[' at offset \(open)", at: position)
            }
            guard chars[position] == "]" else {
                throw failure(
                    "expected ']' to close the '[' at offset \(open), found \(Self.describe(chars[position]))",
                    at: position)
            }
            position += 1
        }

        /// A quoted string at `position` (`'…'` or `"…"`), with backslash escapes decoded.
        mutating func parseQuoted() throws(JSONPathError) -> String {
            let start = position
            let quote = chars[position]
            position += 1
            var text = String.UnicodeScalarView()
            while position < end {
                let character = chars[position]
                if character == quote {
                    position += 1
                    return String(text)
                }
                if character == "\\" {
                    position += 1
                    guard position < end else { break }
                    let escaped = chars[position]
                    switch escaped {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "b": text.append("\u{08}")
                    case "f": text.append("\u{0C}")
                    case "u":
                        var code: UInt32 = 0
                        for offset in 1...4 {
                            guard position + offset < end, let digit = Self.hexValue(chars[position + offset]) else {
                                throw failure("'\\u' must be followed by four hex digits", at: position - 1)
                            }
                            code = code * 16 + digit
                        }
                        text.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                        position += 4
                    default: text.append(escaped)
                    }
                    position += 1
                    continue
                }
                text.append(character)
                position += 1
            }
            throw failure("the string starting here is not closed with \(Self.describe(quote))", at: start)
        }

        // MARK: Characters

        mutating func skipSpaces() {
            while position < end && Self.isSpace(chars[position]) { position += 1 }
        }

        func peek(_ distance: Int) -> Unicode.Scalar? {
            position + distance < end ? chars[position + distance] : nil
        }

        mutating func consume(_ symbol: String) -> Bool {
            var index = position
            for scalar in symbol.unicodeScalars {
                guard index < end, chars[index] == scalar else { return false }
                index += 1
            }
            position = index
            return true
        }

        func failure(_ message: String, at offset: Int) -> JSONPathError {
            .invalid(expression: expression, message: message, offset: offset)
        }

        /// Characters that end a dot-notation name inside a filter (besides `.` and `[`).
        static func endsFilterName(_ character: Unicode.Scalar) -> Bool {
            switch character {
            case ")", "]", ",", "<", ">", "=", "!", "~", "&", "|": true
            default: isSpace(character)
            }
        }

        static func isSpace(_ character: Unicode.Scalar) -> Bool {
            character == " " || character == "\t" || character == "\n" || character == "\r"
        }

        static func isDigit(_ character: Unicode.Scalar) -> Bool {
            character >= "0" && character <= "9"
        }

        static func isLetter(_ character: Unicode.Scalar) -> Bool {
            (character >= "a" && character <= "z") || (character >= "A" && character <= "Z")
        }

        static func hexValue(_ character: Unicode.Scalar) -> UInt32? {
            switch character {
            case "0"..."9": character.value - 48
            case "a"..."f": character.value - 87
            case "A"..."F": character.value - 55
            default: nil
            }
        }

        static func describe(_ character: Unicode.Scalar) -> String {
            "'\(character)'"
        }
    }
}
