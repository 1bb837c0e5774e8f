import BookRuleDocument
import BookRuleRegex

/// jsoup's selector grammar (1.15.3 `QueryParser`/`TokenQueue`), with its errors turned into translation
/// errors naming the piece.
struct CSSParser {
    let scalars: [Unicode.Scalar]
    let text: String
    var position = 0

    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    static let combinatorScalars: Set<Unicode.Scalar> = [",", ">", "+", "~"]
    static let dynamicPseudoClasses: Set<String> = [
        "hover", "active", "focus", "focus-within", "focus-visible", "visited", "link", "any-link", "target",
        "checked", "enabled", "disabled",
    ]

    mutating func parseList() throws(CSSTranslationError) -> CSSSelectorList {
        let trimmed = javaTrimmed(text)
        guard !trimmed.isEmpty else { throw CSSTranslationError(text, "the selector is empty") }
        var selectors: [CSSComplexSelector] = []
        skipWhitespace()
        while true {
            selectors.append(try parseComplex())
            if position >= scalars.count { break }
            // parseComplex stops only at the end or at a comma.
            position += 1
            skipWhitespace()
            if position >= scalars.count {
                throw CSSTranslationError(text, "a selector is missing after the last ','")
            }
        }
        return CSSSelectorList(selectors: selectors, text: trimmed)
    }

    mutating func parseComplex() throws(CSSTranslationError) -> CSSComplexSelector {
        let start = position
        var leading: CSSCombinator?
        if position < scalars.count, let combinator = Self.combinator(scalars[position]) {
            guard combinator != nil else { throw CSSTranslationError(text, "a selector is missing before ','") }
            leading = combinator
            position += 1
            skipWhitespace()
        }
        var compounds: [CSSCompound] = []
        var combinators: [CSSCombinator] = []
        while true {
            compounds.append(try parseCompound())
            let sawWhitespace = skipWhitespace()
            if position >= scalars.count || scalars[position] == "," { break }
            if let next = Self.combinator(scalars[position]), let combinator = next {
                position += 1
                skipWhitespace()
                if position >= scalars.count {
                    throw CSSTranslationError(text, "a selector is missing after '\(Character(scalars[position - 1]))'")
                }
                if Self.combinator(scalars[position]) != nil {
                    throw CSSTranslationError(String(String.UnicodeScalarView(scalars[start..<min(position + 1, scalars.count)])),
                                              "two combinators in a row")
                }
                combinators.append(combinator)
            } else if sawWhitespace {
                combinators.append(.descendant)
            } else {
                throw CSSTranslationError(rest(from: position), "jsoup cannot parse the selector from here")
            }
        }
        let end = position
        return CSSComplexSelector(leading: leading, compounds: compounds, combinators: combinators,
                                  text: javaTrimmed(String(String.UnicodeScalarView(scalars[start..<end]))))
    }

    /// `.some(nil)` for a comma, `.some(combinator)` for `> + ~`, `nil` otherwise.
    static func combinator(_ scalar: Unicode.Scalar) -> CSSCombinator?? {
        switch scalar {
        case ",": return .some(nil)
        case ">": return .some(.child)
        case "+": return .some(.adjacent)
        case "~": return .some(.general)
        default: return nil
        }
    }

    mutating func parseCompound() throws(CSSTranslationError) -> CSSCompound {
        let start = position
        var name: String?
        var conditions: [CSSCondition] = []
        var count = 0
        while position < scalars.count {
            let scalar = scalars[position]
            if isWhitespace(scalar) || Self.combinatorScalars.contains(scalar) { break }
            let pieceStart = position
            switch scalar {
            case "#":
                position += 1
                let id = consumeIdentifier()
                guard !id.isEmpty else { throw CSSTranslationError(piece(from: pieceStart), "'#' needs an id") }
                conditions.append(.id(id))
            case ".":
                position += 1
                let className = consumeIdentifier()
                guard !className.isEmpty else { throw CSSTranslationError(piece(from: pieceStart), "'.' needs a class name") }
                conditions.append(.className(className))
            case "[":
                conditions.append(try parseAttribute())
            case ":":
                position += 1
                conditions.append(try parsePseudo(start: pieceStart, compoundName: name))
            case "*" where !(position + 1 < scalars.count && scalars[position + 1] == "|"):
                position += 1
            default:
                // jsoup starts an element name at a letter or digit, or at `*|`.
                guard isWordScalar(scalar) || scalar == "*" else {
                    throw CSSTranslationError(rest(from: position), "jsoup cannot parse the selector from here")
                }
                let raw = consumeElementName()
                let tag = javaTrimmed(raw).lowercased()
                guard !tag.isEmpty else { throw CSSTranslationError(raw, "an element name is empty") }
                if tag.hasPrefix("*|") {
                    let plain = String(tag.dropFirst(2))
                    guard !plain.isEmpty, !plain.contains("|") else {
                        throw CSSTranslationError(raw, "jsoup reads this namespace form as a literal element name, which matches nothing")
                    }
                    conditions.append(.anyNamespace(plain))
                } else if tag.hasSuffix("|*") {
                    throw CSSTranslationError(raw, "jsoup 1.15 reads ns|* as an element literally named 'ns:*', which matches nothing")
                } else {
                    let plain = tag.split(separator: "|", omittingEmptySubsequences: false).joined(separator: ":")
                    if name == nil && conditions.isEmpty { name = plain } else { conditions.append(.name(plain)) }
                }
            }
            count += 1
        }
        guard count > 0 else {
            if start >= scalars.count { throw CSSTranslationError(text, "a selector is missing at the end") }
            throw CSSTranslationError(rest(from: start), "jsoup cannot parse the selector from here")
        }
        return CSSCompound(name: name, conditions: conditions, text: piece(from: start))
    }

    mutating func parseAttribute() throws(CSSTranslationError) -> CSSCondition {
        let start = position
        let content = try consumeBalanced(open: "[", close: "]")
        let whole = piece(from: start)
        let operators = ["!=", "^=", "$=", "*=", "~=", "="]
        // jsoup takes the key up to the first operator.
        let contentScalars = Array(content.unicodeScalars)
        var keyEnd = contentScalars.count
        var found: String?
        scan: for index in contentScalars.indices {
            for op in operators {
                let opScalars = Array(op.unicodeScalars)
                if index + opScalars.count <= contentScalars.count,
                   Array(contentScalars[index..<(index + opScalars.count)]) == opScalars {
                    keyEnd = index
                    found = op
                    break scan
                }
            }
        }
        let key = String(String.UnicodeScalarView(contentScalars[..<keyEnd]))
        guard !key.isEmpty else { throw CSSTranslationError(whole, "the attribute name is empty") }
        guard let op = found else {
            if key.hasPrefix("^") {
                let prefix = String(key.dropFirst()).lowercased()
                guard !prefix.isEmpty else { throw CSSTranslationError(whole, "the attribute name prefix is empty") }
                return .attributePrefix(prefix)
            }
            guard key == javaTrimmed(key) else {
                throw CSSTranslationError(whole, "jsoup keeps the spaces around the attribute name, so it never matches; write [\(javaTrimmed(key))]")
            }
            guard key != "*" else {
                throw CSSTranslationError(whole, "jsoup before 1.17 (Legado ships 1.16) looks for an attribute literally named \"*\", so it matches nothing")
            }
            return .attribute(name: key.lowercased(), test: .exists)
        }
        let name = javaTrimmed(key).lowercased()
        guard !name.isEmpty else { throw CSSTranslationError(whole, "the attribute name is empty") }
        if name.hasSuffix("|") {
            throw CSSTranslationError(whole, "jsoup has no |= operator: it reads an attribute named \"\(name)\", so the selector matches nothing in Legado")
        }
        let raw = String(String.UnicodeScalarView(contentScalars[(keyEnd + op.unicodeScalars.count)...]))
        if op == "~=" {
            return .attribute(name: name, test: try literalPattern(raw, piece: whole))
        }
        guard !raw.isEmpty else { throw CSSTranslationError(whole, "the attribute value is empty") }
        let isLiteral = raw.count >= 2 && ((raw.hasPrefix("'") && raw.hasSuffix("'")) || (raw.hasPrefix("\"") && raw.hasSuffix("\"")))
        var value = isLiteral ? String(raw.dropFirst().dropLast()) : raw
        let trimsValue = op != "^=" && op != "$="
        if trimsValue || !isLiteral { value = javaTrimmed(value) }
        value = value.lowercased()
        switch op {
        case "=": return .attribute(name: name, test: .equals(value))
        case "!=": return .attribute(name: name, test: .notEquals(value))
        case "^=": return .attribute(name: name, test: .prefix(value))
        case "$=": return .attribute(name: name, test: .suffix(value))
        default: return .attribute(name: name, test: .substring(value))
        }
    }

    /// `[attr~=regex]`: jsoup searches the value with a Java regex. Alternatives of literal text, optionally
    /// anchored (`^a|b$`, `^(a|b)$`, `(?:a|b)`) and prefixed with `(?i)`, become XPath 1.0 string functions (the
    /// fast path); any other pattern is compiled now (an invalid one is an error naming it) and searched with
    /// the `br:match` extension function when the XPath runs.
    func literalPattern(_ raw: String, piece: String) throws(CSSTranslationError) -> CSSAttributeTest {
        do {
            return try literalAlternatives(raw, piece: piece)
        } catch {
            try Self.validateRegex(raw, piece: piece)
            return .regex(raw)
        }
    }

    /// Compiles `pattern` as `br:match` will (PCRE2 through `RegexPattern`, cached), so an invalid pattern is a
    /// load-time error with PCRE2's message and offset instead of a failure on every page.
    static func validateRegex(_ pattern: String, piece: String) throws(CSSTranslationError) {
        do {
            _ = try XPathRegexFunction.compiled(pattern)
        } catch let RegexError.compile(_, message, offset) {
            throw CSSTranslationError(piece, "jsoup reads \"\(pattern)\" as a Java regular expression, and it does not compile: \(message) at offset \(offset)")
        } catch {
            throw CSSTranslationError(piece, "the regular expression \"\(pattern)\" cannot be compiled: \(error)")
        }
    }

    /// `[attr~=regex]` as literal alternatives, or an error when the pattern is more than that.
    func literalAlternatives(_ raw: String, piece: String) throws(CSSTranslationError) -> CSSAttributeTest {
        var scalars = Array(raw.unicodeScalars)[...]
        var ignoringCase = false
        if scalars.starts(with: "(?i)".unicodeScalars) {
            ignoringCase = true
            scalars = scalars.dropFirst(4)
        }
        var alternatives = try Self.patternAlternatives(scalars, piece: piece)
        if ignoringCase {
            alternatives = alternatives.map { alternative in
                var lowered = alternative
                lowered.text = CSSXPathBuilder.asciiLowercased(alternative.text)
                return lowered
            }
        }
        return .pattern(alternatives, ignoringCase: ignoringCase)
    }

    static func patternAlternatives(_ scalars: ArraySlice<Unicode.Scalar>, piece: String) throws(CSSTranslationError) -> [CSSLiteralAlternative] {
        func unsupported(_ what: String) -> CSSTranslationError {
            CSSTranslationError(piece, "the pattern is more than literal alternatives: \(what)")
        }
        // Split at top-level '|'.
        var branches: [ArraySlice<Unicode.Scalar>] = []
        var depth = 0
        var branchStart = scalars.startIndex
        var index = scalars.startIndex
        while index < scalars.endIndex {
            switch scalars[index] {
            case "\\": index += 1
            case "(": depth += 1
            case ")": depth -= 1
            case "|" where depth == 0:
                branches.append(scalars[branchStart..<index])
                branchStart = index + 1
            default: break
            }
            index += 1
        }
        branches.append(scalars[branchStart..<scalars.endIndex])
        var result: [CSSLiteralAlternative] = []
        for var branch in branches {
            var anchoredStart = false
            var anchoredEnd = false
            if branch.first == "^" {
                anchoredStart = true
                branch = branch.dropFirst()
            }
            if branch.last == "$" {
                let backslashes = branch.dropLast().reversed().prefix { $0 == "\\" }.count
                if backslashes % 2 == 0 {
                    anchoredEnd = true
                    branch = branch.dropLast()
                }
            }
            if branch.first == "(", branch.last == ")", Self.closingParenthesis(of: branch) == branch.endIndex - 1 {
                var inner = branch.dropFirst().dropLast()
                if inner.starts(with: "?:".unicodeScalars) {
                    inner = inner.dropFirst(2)
                } else if inner.first == "?" {
                    throw unsupported("(?…) is a look-around or flag group")
                }
                for alternative in try patternAlternatives(inner, piece: piece) {
                    result.append(CSSLiteralAlternative(text: alternative.text,
                                                        anchoredStart: anchoredStart || alternative.anchoredStart,
                                                        anchoredEnd: anchoredEnd || alternative.anchoredEnd))
                }
                continue
            }
            var literal = ""
            var iterator = branch.makeIterator()
            while let scalar = iterator.next() {
                if scalar == "\\" {
                    guard let escaped = iterator.next() else { throw unsupported("it ends with a backslash") }
                    guard !(escaped.properties.isAlphabetic || ("0"..."9").contains(escaped)) else {
                        throw unsupported("\\\(Character(escaped)) is a pattern class")
                    }
                    literal.unicodeScalars.append(escaped)
                    continue
                }
                if "^$.|?*+()[]{}".unicodeScalars.contains(scalar) {
                    throw unsupported("'\(Character(scalar))' is a pattern operator")
                }
                literal.unicodeScalars.append(scalar)
            }
            result.append(CSSLiteralAlternative(text: literal, anchoredStart: anchoredStart, anchoredEnd: anchoredEnd))
        }
        return result
    }

    /// The index of the ')' closing the '(' at the start of `scalars`, skipping escapes.
    static func closingParenthesis(of scalars: ArraySlice<Unicode.Scalar>) -> Int? {
        var depth = 0
        var index = scalars.startIndex
        while index < scalars.endIndex {
            switch scalars[index] {
            case "\\": index += 1
            case "(": depth += 1
            case ")":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index += 1
        }
        return nil
    }

    mutating func parsePseudo(start: Int, compoundName: String?) throws(CSSTranslationError) -> CSSCondition {
        let name = consumeIdentifier()
        func wholePiece() -> String { piece(from: start) }
        switch name {
        case "lt", "gt", "eq":
            let argument = javaTrimmed(try consumeBalanced(open: "(", close: ")"))
            guard !argument.isEmpty, argument.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let number = Int(argument) else {
                throw CSSTranslationError(wholePiece(), "the index must be a number")
            }
            let comparison: CSSIndexComparison = name == "lt" ? .less : name == "gt" ? .greater : .equal
            return .siblingIndex(comparison, number)
        case "has", "not", "is":
            let argument = try consumeBalanced(open: "(", close: ")")
            guard !javaTrimmed(argument).isEmpty else {
                throw CSSTranslationError(wholePiece(), ":\(name)(selector) needs a selector")
            }
            var inner = CSSParser(argument)
            let list = try inner.parseList()
            switch name {
            case "has": return .has(list)
            case "not": return .not(list)
            default: return .is(list)
            }
        case "contains", "containsOwn":
            let argument = Self.unescaped(try consumeBalanced(open: "(", close: ")"))
            guard !argument.isEmpty else { throw CSSTranslationError(wholePiece(), ":\(name)(text) needs text") }
            let needle = CSSXPathBuilder.normalizedNeedle(argument)
            return name == "contains" ? .contains(needle) : .containsOwn(needle)
        case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
            let argument = javaTrimmed(try consumeBalanced(open: "(", close: ")")).lowercased()
            guard let (a, b) = Self.nthArguments(argument) else {
                throw CSSTranslationError(wholePiece(), "jsoup cannot read the index \"\(argument)\" (write it like 2n+1, -n+3, odd or 4, without spaces)")
            }
            let ofType = name.hasSuffix("of-type")
            return .nth(a: a, b: b, fromEnd: name.hasPrefix("nth-last"),
                        ofType: ofType ? try typeName(compoundName, piece: wholePiece()) : nil)
        case "first-child": return .nth(a: 0, b: 1, fromEnd: false, ofType: nil)
        case "last-child": return .nth(a: 0, b: 1, fromEnd: true, ofType: nil)
        case "first-of-type": return .nth(a: 0, b: 1, fromEnd: false, ofType: try typeName(compoundName, piece: wholePiece()))
        case "last-of-type": return .nth(a: 0, b: 1, fromEnd: true, ofType: try typeName(compoundName, piece: wholePiece()))
        case "only-child": return .onlyChild
        case "only-of-type": return .onlyOfType(try typeName(compoundName, piece: wholePiece()))
        case "empty": return .empty
        case "root": return .root
        case "matches", "matchesOwn":
            // jsoup's `chompBalanced`, not unescaped: the backslashes are the regex's.
            let pattern = try consumeBalanced(open: "(", close: ")")
            guard !pattern.isEmpty else { throw CSSTranslationError(wholePiece(), ":\(name)(regex) needs a regular expression") }
            try Self.validateRegex(pattern, piece: wholePiece())
            return .matches(pattern, own: name == "matchesOwn")
        case "matchesWholeText", "matchesWholeOwnText":
            throw CSSTranslationError(wholePiece() + "(…)", "bookrule translates :matches and :matchesOwn, not this jsoup extension")
        case "containsData", "containsWholeText", "containsWholeOwnText", "matchText":
            throw CSSTranslationError(wholePiece(), "bookrule translates :contains and :containsOwn, not this jsoup extension")
        case "":
            throw CSSTranslationError(rest(from: start), "pseudo-elements select no elements")
        default:
            if Self.dynamicPseudoClasses.contains(name) {
                throw CSSTranslationError(wholePiece(), "dynamic pseudo-classes don't apply to a saved page")
            }
            throw CSSTranslationError(wholePiece(), "jsoup does not know this pseudo-class")
        }
    }

    func typeName(_ compoundName: String?, piece: String) throws(CSSTranslationError) -> String {
        guard let compoundName else {
            throw CSSTranslationError(piece, "XPath 1.0 cannot compare an element's name with its siblings' names; put the element name before it (li\(piece))")
        }
        return compoundName
    }

    /// jsoup's `an+b` forms: `odd`, `even`, `(+|-)?(digits)?n((+|-)digits)?`, or `(+|-)?digits`; nil when
    /// jsoup rejects the text.
    static func nthArguments(_ text: String) -> (Int, Int)? {
        if text == "odd" { return (2, 1) }
        if text == "even" { return (2, 0) }
        let scalars = Array(text.unicodeScalars)
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        if let nIndex = scalars.firstIndex(of: "n") {
            var head = scalars[..<nIndex]
            var sign = 1
            if let first = head.first, first == "+" || first == "-" {
                sign = first == "-" ? -1 : 1
                head = head.dropFirst()
            }
            guard head.allSatisfy(isDigit) else { return nil }
            // jsoup 1.15.3 reads a bare `-n` as `n` (`-n+2` is `n+2`), a long-standing quirk (jhy/jsoup#310).
            let a = head.isEmpty ? 1 : sign * (Int(String(String.UnicodeScalarView(head))) ?? 0)
            let tail = scalars[(nIndex + 1)...]
            if tail.isEmpty { return (a, 0) }
            // jsoup's pattern allows spaces here, but then fails to read the number: only `[+-]?digits`.
            var digits = tail
            var tailSign = 1
            if let first = digits.first, first == "+" || first == "-" {
                tailSign = first == "-" ? -1 : 1
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty, digits.allSatisfy(isDigit), let b = Int(String(String.UnicodeScalarView(digits))) else {
                return nil
            }
            return (a, tailSign * b)
        }
        var digits = scalars[...]
        var sign = 1
        if let first = digits.first, first == "+" || first == "-" {
            sign = first == "-" ? -1 : 1
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy(isDigit), let b = Int(String(String.UnicodeScalarView(digits))) else {
            return nil
        }
        return (0, sign * b)
    }

    /// jsoup's `TokenQueue.unescape`: a backslash keeps the next character literally.
    static func unescaped(_ text: String) -> String {
        var result = ""
        var escaping = false
        for scalar in text.unicodeScalars {
            if scalar == "\\" && !escaping {
                escaping = true
                continue
            }
            escaping = false
            result.unicodeScalars.append(scalar)
        }
        return result
    }
}
