/// Translates CSS selectors, as jsoup (the engine Legado runs) reads them, into XPath 1.0 for libxml2.
///
/// `xpath(_:)` gives an expression to evaluate with the context node as XPath context: it selects the context
/// itself or its descendants that match, in document order, exactly like jsoup's `Element.select(css)` (which
/// also includes the element it is called on). Compile it once and run it per list element.
///
/// jsoup's semantics are kept where they differ from the CSS standard (checked against jsoup 1.15.3):
/// - class names and attribute values compare case-insensitively (`[href$=.HTML]` matches `a.html`), and
///   `[attr=value]` ignores spaces around the element's value;
/// - `[attr~=x]` is a regular expression searched in the value (jsoup's extension), translated when it is
///   literal alternatives, optionally anchored with `^`/`$`, grouped, or prefixed with `(?i)`;
/// - combinators do not look above the context: from a list element, `div a` only sees `div`s inside that
///   element (or the element itself);
/// - `:lt(n)`, `:gt(n)`, `:eq(n)` count element siblings from 0; `:contains(x)` searches the element's text,
///   `:containsOwn(x)` its own text, both case-insensitively with whitespace collapsed.
///
/// XPath 1.0 cannot express everything; those pieces are errors naming the piece (see `CSSTranslationError`).
enum CSSTranslator {
    /// An XPath 1.0 expression selecting the context node or its descendants that match `selector`.
    static func xpath(_ selector: String) throws(CSSTranslationError) -> String {
        let list = try parse(selector)
        let branches = try CSSXPathBuilder.pathBranches(list, excludingContext: false)
        return branches.joined(separator: " | ")
    }

    /// Parses a selector list the way jsoup's `QueryParser` does.
    static func parse(_ selector: String) throws(CSSTranslationError) -> CSSSelectorList {
        var parser = CSSParser(selector)
        return try parser.parseList()
    }
}

/// A selector piece XPath 1.0 cannot express, or a selector jsoup would reject.
struct CSSTranslationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What the piece is.
    enum Subject: Sendable, Equatable {
        /// A CSS selector or a piece of one, e.g. `:hover`.
        case css
        /// A JSoup segment of a Legado rule, e.g. `tag.li.x`.
        case segment
        /// A whole Legado rule.
        case rule
    }

    var subject: Subject
    /// The piece as written.
    var piece: String
    /// Why it cannot be translated.
    var reason: String

    init(_ subject: Subject, _ piece: String, _ reason: String) {
        self.subject = subject
        self.piece = piece
        self.reason = reason
    }

    /// An error about a CSS piece.
    init(_ piece: String, _ reason: String) {
        self.init(.css, piece, reason)
    }

    /// `CSS ":hover" cannot be translated: dynamic pseudo-classes don't apply to a saved page`.
    var description: String {
        let noun: String
        switch subject {
        case .css: noun = "CSS"
        case .segment: noun = "JSoup segment"
        case .rule: noun = "JSoup rule"
        }
        return "\(noun) \"\(piece)\" cannot be translated: \(reason)"
    }
}

// MARK: - Syntax tree

/// `a, b`: any of the selectors.
struct CSSSelectorList: Sendable {
    var selectors: [CSSComplexSelector]
    var text: String
}

/// Compound selectors joined by combinators, e.g. `div.list > a`; may start with a combinator (`> a`), which
/// relates to the context element.
struct CSSComplexSelector: Sendable {
    var leading: CSSCombinator?
    var compounds: [CSSCompound]
    /// `combinators[i]` joins `compounds[i]` and `compounds[i + 1]`.
    var combinators: [CSSCombinator]
    var text: String
}

enum CSSCombinator: Sendable, Equatable {
    /// whitespace
    case descendant
    /// `>`
    case child
    /// `+`
    case adjacent
    /// `~`
    case general
}

/// Simple selectors that must all hold for one element, e.g. `a.x[href]:first-child`.
struct CSSCompound: Sendable {
    /// The element name to test in the XPath step (`nil` for any element).
    var name: String?
    var conditions: [CSSCondition]
    var text: String
}

indirect enum CSSCondition: Sendable {
    /// A further element name in the same compound (`a*`, `*|a`).
    case name(String)
    /// `*|name`: `name` or any `prefix:name`.
    case anyNamespace(String)
    case id(String)
    /// `.name`; jsoup compares class names case-insensitively.
    case className(String)
    case attribute(name: String, test: CSSAttributeTest)
    /// `[^prefix]`: an attribute whose name starts with `prefix`.
    case attributePrefix(String)
    /// `:nth-child(an+b)` and friends; `ofType` needs the compound's element name.
    case nth(a: Int, b: Int, fromEnd: Bool, ofType: String?)
    case onlyChild
    case onlyOfType(String)
    case empty
    case root
    /// `:lt(n)` (the context element itself never matches), `:gt(n)`, `:eq(n)`: element sibling index.
    case siblingIndex(CSSIndexComparison, Int)
    case contains(String)
    case containsOwn(String)
    case not(CSSSelectorList)
    case `is`(CSSSelectorList)
    case has(CSSSelectorList)
}

/// One alternative of a literal `~=` pattern: the text, and whether `^`/`$` anchor it.
struct CSSLiteralAlternative: Sendable, Equatable {
    var text: String
    var anchoredStart: Bool
    var anchoredEnd: Bool
}

enum CSSIndexComparison: Sendable {
    case less, greater, equal
}

/// How an attribute's value is tested (values already lower-cased where jsoup compares case-insensitively).
enum CSSAttributeTest: Sendable {
    case exists
    /// `=`: the element's value, trimmed, equals (ignoring case).
    case equals(String)
    /// `!=`: the element's value (empty when absent) does not equal (ignoring case).
    case notEquals(String)
    case prefix(String)
    case suffix(String)
    case substring(String)
    /// `~=` with a pattern of literal alternatives (`^a|b$`, `(a|b)`); `ignoringCase` for `(?i)` (ASCII).
    case pattern([CSSLiteralAlternative], ignoringCase: Bool)
}

// MARK: - Parser

/// jsoup's selector grammar (1.15.3 `QueryParser`/`TokenQueue`), with its errors turned into translation
/// errors naming the piece.
struct CSSParser {
    private let scalars: [Unicode.Scalar]
    private let text: String
    private var position = 0

    init(_ text: String) {
        self.text = text
        self.scalars = Array(text.unicodeScalars)
    }

    private static let combinatorScalars: Set<Unicode.Scalar> = [",", ">", "+", "~"]
    private static let dynamicPseudoClasses: Set<String> = [
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

    private mutating func parseComplex() throws(CSSTranslationError) -> CSSComplexSelector {
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
    private static func combinator(_ scalar: Unicode.Scalar) -> CSSCombinator?? {
        switch scalar {
        case ",": return .some(nil)
        case ">": return .some(.child)
        case "+": return .some(.adjacent)
        case "~": return .some(.general)
        default: return nil
        }
    }

    private mutating func parseCompound() throws(CSSTranslationError) -> CSSCompound {
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

    private mutating func parseAttribute() throws(CSSTranslationError) -> CSSCondition {
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
    /// anchored (`^a|b$`, `^(a|b)$`, `(?:a|b)`) and prefixed with `(?i)`, become XPath 1.0 string functions.
    private func literalPattern(_ raw: String, piece: String) throws(CSSTranslationError) -> CSSAttributeTest {
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

    private static func patternAlternatives(_ scalars: ArraySlice<Unicode.Scalar>, piece: String) throws(CSSTranslationError) -> [CSSLiteralAlternative] {
        func unsupported(_ what: String) -> CSSTranslationError {
            CSSTranslationError(piece, "jsoup reads [attr~=…] as a regular expression and \(what); XPath 1.0 has no regular expressions, so only literal alternatives (optionally with ^, $, (…) or (?i)) are translated")
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
    private static func closingParenthesis(of scalars: ArraySlice<Unicode.Scalar>) -> Int? {
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

    private mutating func parsePseudo(start: Int, compoundName: String?) throws(CSSTranslationError) -> CSSCondition {
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
        case "matches", "matchesOwn", "matchesWholeText", "matchesWholeOwnText":
            throw CSSTranslationError(wholePiece() + "(…)", "regular expressions on text have no XPath 1.0 equivalent")
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

    private func typeName(_ compoundName: String?, piece: String) throws(CSSTranslationError) -> String {
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
    private static func unescaped(_ text: String) -> String {
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

    // MARK: Tokens

    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = position
        while position < scalars.count, isWhitespace(scalars[position]) { position += 1 }
        return position > start
    }

    private func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }

    /// Java's `Character.isLetterOrDigit`.
    private func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
            return true
        default:
            return false
        }
    }

    private mutating func consumeIdentifier() -> String {
        let start = position
        while position < scalars.count, isWordScalar(scalars[position]) || scalars[position] == "-" || scalars[position] == "_" {
            position += 1
        }
        return String(String.UnicodeScalarView(scalars[start..<position]))
    }

    private mutating func consumeElementName() -> String {
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
    private mutating func consumeBalanced(open: Unicode.Scalar, close: Unicode.Scalar) throws(CSSTranslationError) -> String {
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

    private func piece(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<min(position, scalars.count)]))
    }

    private func rest(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[min(start, scalars.count)...]))
    }
}

/// Java's `String.trim()`: drops characters up to U+0020 at both ends.
func javaTrimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { $0.value > 0x20 }),
          let last = scalars.lastIndex(where: { $0.value > 0x20 }) else { return "" }
    return String(scalars[first...last])
}

// MARK: - XPath generation

/// Builds XPath 1.0 from the syntax tree. Two shapes:
/// - *paths* from the context (`descendant-or-self::div/child::a`), which keep jsoup's rule that combinators
///   never look above the context — used for whole selectors and inside `:has()`;
/// - *predicates* on one candidate element, used inside `:not()`/`:is()` and for positional steps. A predicate
///   cannot see the context, so it is only built where the context does not matter: compounds, sibling
///   combinators, and one `>` to the leftmost compound. Whether the candidate is the context itself is
///   passed in (jsoup's combinators and `:lt` never match the context itself, `:root` only it).
enum CSSXPathBuilder {
    static let maximumBranches = 64

    // MARK: Paths

    /// Relative location paths (to join with `|`) selecting the elements that match `list`, starting from the
    /// context; with `excludingContext` the context itself is never selected (`:has`).
    static func pathBranches(_ list: CSSSelectorList, excludingContext: Bool) throws(CSSTranslationError) -> [String] {
        var branches: [String] = []
        for selector in list.selectors {
            branches += try pathBranches(selector, excludingContext: excludingContext)
        }
        var seen = Set<String>()
        branches = branches.filter { seen.insert($0).inserted }
        guard branches.count <= maximumBranches else {
            throw CSSTranslationError(list.text, "the selector needs more than \(maximumBranches) XPath alternatives")
        }
        return branches.isEmpty ? ["self::node()[false()]"] : branches
    }

    private static func pathBranches(_ selector: CSSComplexSelector, excludingContext: Bool) throws(CSSTranslationError) -> [String] {
        let first = selector.compounds[0]
        var heads: [String] = []
        switch selector.leading {
        case .child?:
            if let step = try step("child", first, isContext: false) { heads = [step] }
        case .descendant?:
            if let step = try step("descendant", first, isContext: false) { heads = [step] }
        case .adjacent?, .general?:
            throw CSSTranslationError(selector.text, "a selector starting with '+' or '~' asks for the context element's own siblings, which jsoup never selects (they are outside it)")
        case nil:
            let siblingNext = selector.combinators.first.map { $0 == .adjacent || $0 == .general } ?? false
            let contextAllowed = !siblingNext && !(excludingContext && selector.compounds.count == 1)
            let other = try step("descendant", first, isContext: false)
            if contextAllowed {
                let own = try step("self", first, isContext: true)
                // The same test for the context and below it: one descendant-or-self step.
                if let own, let other, own.dropFirst("self".count) == other.dropFirst("descendant".count) {
                    heads = ["descendant-or-self" + other.dropFirst("descendant".count)]
                } else {
                    heads = [own, other].compactMap { $0 }
                }
            } else if let other {
                heads = [other]
            }
        }
        var tail = ""
        for (index, combinator) in selector.combinators.enumerated() {
            let compound = selector.compounds[index + 1]
            let next: String?
            switch combinator {
            case .descendant: next = try step("descendant", compound, isContext: false)
            case .child: next = try step("child", compound, isContext: false)
            case .general: next = try step("following-sibling", compound, isContext: false)
            case .adjacent:
                let parts = try predicates(of: compound, isContext: false)
                next = parts.map { parts in
                    var text = "following-sibling::*[1]"
                    if let name = compound.name { text += "[\(selfTest(name))]" }
                    for part in parts { text += "[\(part)]" }
                    return text
                }
            }
            guard let next else { return [] }
            tail += "/" + next
        }
        return heads.map { $0 + tail }
    }

    /// `axis::name[p1][p2]`, or nil when the compound cannot match there.
    private static func step(_ axis: String, _ compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> String? {
        guard let parts = try predicates(of: compound, isContext: isContext) else { return nil }
        var text = axis + "::"
        if let name = compound.name {
            if let test = nameTest(name) {
                text += test
            } else {
                text += "*[name()=\(literal(name))]"
            }
        } else {
            text += "*"
        }
        for part in parts { text += "[\(part)]" }
        return text
    }

    // MARK: Predicates

    /// One boolean expression for "the candidate matches `list`", or nil when it never does; throws where the
    /// answer would depend on the context, which a predicate cannot see.
    static func predicate(_ list: CSSSelectorList, isContext: Bool) throws(CSSTranslationError) -> String? {
        var alternatives: [String] = []
        for selector in list.selectors {
            guard let expression = try predicate(selector, isContext: isContext) else { continue }
            if expression == "true()" { return "true()" }
            alternatives.append(expression)
        }
        if alternatives.isEmpty { return nil }
        return alternatives.count == 1 ? alternatives[0] : alternatives.map { "(\($0))" }.joined(separator: " or ")
    }

    private static func predicate(_ selector: CSSComplexSelector, isContext: Bool) throws(CSSTranslationError) -> String? {
        if selector.leading != nil || selector.compounds.count > 1 {
            // jsoup's combinators never match the context element itself.
            if isContext { return nil }
        }
        if selector.leading != nil {
            throw CSSTranslationError(selector.text, "a selector starting with a combinator relates to the context element, which an XPath 1.0 predicate cannot see")
        }
        let count = selector.compounds.count
        guard var expression = try compoundPredicate(selector.compounds[count - 1], isContext: isContext) else { return nil }
        var index = count - 2
        while index >= 0 {
            let compound = selector.compounds[index]
            switch selector.combinators[index] {
            case .adjacent, .general:
                // Siblings of an element inside the context are inside it too, and are never the context.
                guard let left = try compoundPredicate(compound, isContext: false) else { return nil }
                let axis = selector.combinators[index] == .adjacent ? "preceding-sibling::*[1]" : "preceding-sibling::*"
                expression = conjunction([expression, "\(axis)[\(left)]"])
            case .child:
                // The parent may be the context itself; that is only safe when nothing further left is asked of it.
                guard index == 0 else {
                    throw CSSTranslationError(selector.text, "here XPath 1.0 can only follow '>' one level up (the parent may be the context element, where jsoup stops)")
                }
                let asContext = try compoundPredicate(compound, isContext: true)
                let asOther = try compoundPredicate(compound, isContext: false)
                guard asContext == asOther else {
                    throw CSSTranslationError(compound.text, "whether the parent is the context element changes the answer, which an XPath 1.0 predicate cannot tell")
                }
                guard let left = asOther else { return nil }
                expression = conjunction([expression, "parent::*[\(left)]"])
            case .descendant:
                throw CSSTranslationError(selector.text, "a descendant combinator here would have to stop at the context element, which an XPath 1.0 predicate cannot see")
            }
            index -= 1
        }
        return expression
    }

    /// The compound as one boolean expression (element name included), or nil when it cannot match.
    static func compoundPredicate(_ compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> String? {
        guard let parts = try predicates(of: compound, isContext: isContext) else { return nil }
        var all: [String] = []
        if let name = compound.name { all.append(selfTest(name)) }
        all += parts
        if all.isEmpty { return "true()" }
        return conjunction(all)
    }

    /// The compound's conditions (without its element name), or nil when they cannot hold.
    private static func predicates(of compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> [String]? {
        var result: [String] = []
        for condition in compound.conditions {
            guard let expression = try predicate(condition, isContext: isContext) else { return nil }
            if expression != "true()" { result.append(expression) }
        }
        return result
    }

    private static func predicate(_ condition: CSSCondition, isContext: Bool) throws(CSSTranslationError) -> String? {
        switch condition {
        case .name(let name):
            return selfTest(name)
        case .anyNamespace(let name):
            let suffix = ":" + name
            return "\(selfTest(name)) or \(endsWith("name()", suffix))"
        case .id(let id):
            return "@id=\(literal(id))"
        case .className(let name):
            return classPredicate(name)
        case .attribute(let name, let test):
            return attributePredicate(name, test)
        case .attributePrefix(let prefix):
            return "@*[starts-with(name(), \(literal(prefix)))]"
        case .nth(let a, let b, let fromEnd, let ofType):
            let siblings = ofType.map { nameTest($0) ?? "*[name()=\(literal($0))]" } ?? "*"
            let axis = fromEnd ? "following-sibling" : "preceding-sibling"
            let position = "count(\(axis)::\(siblings))+1"
            guard let condition = nthCondition(position: position, a: a, b: b) else { return nil }
            return condition == "true()" ? "parent::*" : "parent::* and \(condition)"
        case .onlyChild:
            return "parent::* and not(preceding-sibling::* or following-sibling::*)"
        case .onlyOfType(let name):
            let siblings = nameTest(name) ?? "*[name()=\(literal(name))]"
            return "parent::* and not(preceding-sibling::\(siblings) or following-sibling::\(siblings))"
        case .empty:
            return "not(node()[not(self::comment() or self::processing-instruction())])"
        case .root:
            // jsoup: the context element, or the document element when the context is the page. An element
            // below the context is the document element only when the context is the document.
            return isContext ? "true()" : "not(parent::*)"
        case .siblingIndex(let comparison, let number):
            switch comparison {
            case .less: return isContext ? nil : "count(preceding-sibling::*) < \(number)"
            case .greater: return "count(preceding-sibling::*) > \(number)"
            case .equal: return "count(preceding-sibling::*) = \(number)"
            }
        case .contains(let needle):
            return "contains(\(fold(normalizedText("string(.)"), needle: needle)), \(literal(needle)))"
        case .containsOwn(let needle):
            return ownTextContains(needle)
        case .not(let list):
            guard let inner = try predicate(list, isContext: isContext) else { return "true()" }
            if inner == "true()" { return nil }
            return "not(\(inner))"
        case .is(let list):
            return try predicate(list, isContext: isContext)
        case .has(let list):
            let branches = try pathBranches(list, excludingContext: true)
            return branches.count == 1 ? branches[0] : "(" + branches.joined(separator: " | ") + ")"
        }
    }

    /// jsoup's `hasClass`: a whitespace-separated token equal ignoring case, or (a jsoup quirk that Legado's
    /// `class.a b` relies on) the whole attribute equal ignoring case.
    static func classPredicate(_ name: String) -> String {
        let lowered = name.lowercased()
        let value = fold("@class", needle: lowered)
        if lowered.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }) {
            return "\(value)=\(literal(lowered))"
        }
        return "contains(concat(' ', normalize-space(\(value)), ' '), \(literal(" " + lowered + " ")))"
    }

    private static func attributePredicate(_ name: String, _ test: CSSAttributeTest) -> String {
        let attribute = attributeReference(name)
        let value = "string(\(attribute))"
        switch test {
        case .exists:
            return attribute
        case .equals(let expected):
            if expected.isEmpty { return "\(attribute) and normalize-space(\(value))=''" }
            let folded = fold(value, needle: expected)
            let quoted = literal(expected)
            return "contains(\(folded), \(quoted)) and normalize-space(substring-before(\(folded), \(quoted)))=''"
                + " and normalize-space(substring-after(\(folded), \(quoted)))=''"
        case .notEquals(let expected):
            return "not(\(fold(value, needle: expected))=\(literal(expected)))"
        case .prefix(let expected):
            if expected.isEmpty { return attribute }
            return "starts-with(\(fold(value, needle: expected)), \(literal(expected)))"
        case .suffix(let expected):
            if expected.isEmpty { return attribute }
            return endsWith(fold(value, needle: expected), expected)
        case .substring(let expected):
            if expected.isEmpty { return attribute }
            return "contains(\(fold(value, needle: expected)), \(literal(expected)))"
        case .pattern(let alternatives, let ignoringCase):
            var conditions: [String] = []
            for alternative in alternatives {
                let expected = alternative.text
                let subject = ignoringCase ? asciiFold(value, needle: expected) : value
                let condition: String
                switch (alternative.anchoredStart, alternative.anchoredEnd) {
                case (true, true): condition = "\(subject)=\(literal(expected))"
                case (true, false): condition = "starts-with(\(subject), \(literal(expected)))"
                case (false, true): condition = endsWith(subject, expected)
                case (false, false): condition = "contains(\(subject), \(literal(expected)))"
                }
                if expected.isEmpty && !(alternative.anchoredStart && alternative.anchoredEnd) { return attribute }
                if !conditions.contains(condition) { conditions.append(condition) }
            }
            let any = conditions.count == 1 ? conditions[0] : conditions.map { "(\($0))" }.joined(separator: " or ")
            // `=` on an absent attribute compares "" and could hold; jsoup needs the attribute.
            return "\(attribute) and (\(any))"
        }
    }

    /// jsoup's `ownText()` contains `needle` (already lower-cased and whitespace-collapsed): the element's own
    /// text nodes (the first eight) joined, whitespace collapsed, compared ignoring case. Script and style
    /// contents are data in jsoup, never text.
    static func ownTextContains(_ needle: String) -> String {
        let pieces = (1...8).map { "text()[\($0)]" }.joined(separator: ", ")
        let own = normalizedText("concat(\(pieces))")
        return "not(self::script or self::style) and contains(\(fold(own, needle: needle)), \(literal(needle)))"
    }

    /// jsoup's whitespace normalisation of text: NO-BREAK SPACE counts as a space, zero-width space and soft
    /// hyphen are dropped, runs collapse and the ends are trimmed.
    static func normalizedText(_ expression: String) -> String {
        "normalize-space(translate(\(expression), '\u{A0}\u{200B}\u{AD}', ' '))"
    }

    /// A search text as jsoup prepares it: whitespace runs collapsed to one space (not trimmed), lower-cased.
    static func normalizedNeedle(_ text: String) -> String {
        var result = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" || scalar == "\u{A0}" {
                if !lastWasSpace { result += " " }
                lastWasSpace = true
            } else if scalar == "\u{200B}" || scalar == "\u{AD}" {
                continue
            } else {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        return result.lowercased()
    }

    /// jsoup's `:nth-*` test for `position`: `a == 0 ? pos == b : (pos - b) * a >= 0 && (pos - b) % a == 0`.
    static func nthCondition(position: String, a: Int, b: Int) -> String? {
        if a == 0 { return b >= 1 ? "\(position)=\(b)" : nil }
        if a > 0 {
            if a == 1 { return b <= 1 ? "true()" : "\(position)>=\(b)" }
            let modulo = "(\(position)-\(b)) mod \(a)=0"
            return b <= 1 ? modulo : "\(position)>=\(b) and \(modulo)"
        }
        if b < 1 { return nil }
        if a == -1 { return "\(position)<=\(b)" }
        return "\(position)<=\(b) and (\(b)-(\(position))) mod \(-a)=0"
    }

    // MARK: Helpers

    /// `translate(expression, 'ABC', 'abc')` for the characters of `needle` that have an upper-case form, so
    /// the comparison ignores case the way Java's `toLowerCase`/`equalsIgnoreCase` do for those characters.
    static func fold(_ expression: String, needle: String) -> String {
        var upper = ""
        var lower = ""
        var seen = Set<Unicode.Scalar>()
        for scalar in needle.unicodeScalars where seen.insert(scalar).inserted {
            let upperForm = String(scalar).uppercased()
            guard upperForm.unicodeScalars.count == 1, let upperScalar = upperForm.unicodeScalars.first,
                  upperScalar != scalar, String(upperScalar).lowercased() == String(scalar) else { continue }
            upper.unicodeScalars.append(upperScalar)
            lower.unicodeScalars.append(scalar)
        }
        if upper.isEmpty { return expression }
        return "translate(\(expression), \(literal(upper)), \(literal(lower)))"
    }

    /// Like `fold`, for ASCII letters only (Java's `(?i)` without UNICODE_CASE).
    static func asciiFold(_ expression: String, needle: String) -> String {
        var upper = ""
        var lower = ""
        var seen = Set<Unicode.Scalar>()
        for scalar in needle.unicodeScalars where ("a"..."z").contains(scalar) && seen.insert(scalar).inserted {
            upper.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            lower.unicodeScalars.append(scalar)
        }
        if upper.isEmpty { return expression }
        return "translate(\(expression), \(literal(upper)), \(literal(lower)))"
    }

    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    private static func endsWith(_ expression: String, _ suffix: String) -> String {
        let length = suffix.unicodeScalars.count
        return "substring(\(expression), string-length(\(expression))-\(length - 1))=\(literal(suffix))"
    }

    /// An XPath string literal; XPath 1.0 has no escapes, so text with both quote kinds becomes `concat(…)`.
    static func literal(_ text: String) -> String {
        if !text.contains("'") { return "'\(text)'" }
        if !text.contains("\"") { return "\"\(text)\"" }
        let parts = text.split(separator: "'", omittingEmptySubsequences: false).map { "'\($0)'" }
        return "concat(" + parts.joined(separator: ", \"'\", ") + ")"
    }

    /// `self::name`, or a `name()` comparison for names XPath cannot write as a name test.
    static func selfTest(_ name: String) -> String {
        if let test = nameTest(name) { return "self::\(test)" }
        return "name()=\(literal(name))"
    }

    static func attributeReference(_ name: String) -> String {
        if let test = nameTest(name) { return "@\(test)" }
        return "@*[name()=\(literal(name))]"
    }

    /// The name as an XPath NCName test, or nil when it is not one (`fb:like`, `a b`).
    static func nameTest(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return nil }
        func isStart(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_" || (scalar.value > 0x7F && scalar.properties.isAlphabetic)
        }
        guard isStart(first) else { return nil }
        let valid = name.unicodeScalars.allSatisfy { scalar in
            isStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
                || (scalar.value > 0x7F && (scalar.properties.isAlphabetic || scalar.properties.numericType != nil))
        }
        return valid ? name : nil
    }

    /// `a and b`, parenthesising parts that contain `or`.
    private static func conjunction(_ parts: [String]) -> String {
        if parts.count == 1 { return parts[0] }
        return parts.map { $0.contains(" or ") ? "(\($0))" : $0 }.joined(separator: " and ")
    }
}
