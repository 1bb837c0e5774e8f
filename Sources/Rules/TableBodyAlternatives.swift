/// Makes a `tbody` step in a compiled XPath optional, so rules written against jsoup's tree match libxml2's.
///
/// jsoup (Legado's parser) builds tables as HTML5 does: rows written directly in a `<table>` go into a `tbody`
/// it inserts, so authors (and browsers' "Copy XPath") write `//table/tbody/tr`. libxml2 keeps the tree as
/// written. Rather than change the tree, which would break every rule that works today (`//table/tr`,
/// `table > tr`), each location path with a `tbody` step becomes the union of itself and the same path with
/// that step standing for the table itself when it has rows of its own: `table/tbody/tr` →
/// `(table/tbody/tr | table/self::table[tr]/tr)`.
/// A `tbody` the page wrote is matched by the first branch, an inserted one by the second; rules without
/// `tbody` are unchanged.
///
/// The step keeps its meaning per axis: a child `tbody` becomes `self::table[tr]`; a descendant one becomes
/// `descendant-or-self::table[tr]` (the context table, or a table below it); a descendant step after it starts
/// from the table's own rows (`tbody//td` → `self::table[tr]/tr/descendant-or-self::td`), so `thead` and
/// `tfoot` rows stay out. A step with a predicate gets no alternative, except `[1]`: the inserted `tbody` is
/// its table's first, and on the descendant axis the first `tbody` is the first written one or table with
/// rows of its own (one step, `descendant-or-self::*[self::tbody or self::table[tr]][1]`); an inserted `tbody`
/// has no attributes, so `tbody[@class='x']` can only mean a written one.
enum TableBodyAlternatives {
    /// At most this many `tbody` steps in one path get alternatives (each doubles the branches).
    private static let maximumSteps = 4
    /// The longest rewritten expression, in UTF-8 bytes. The step cap is per path, and a bracketed part is
    /// rewritten before being copied into each of its path's variants, so nesting multiplies: without a bound on
    /// the whole, a rule of 150 characters grows to tens of megabytes. Beyond it the rule stays as written.
    static let maximumLength = 64 * 1024

    /// Thrown inside the rewrite once its output would pass `maximumLength`.
    private struct TooLong: Error {}

    /// `expression` with every `tbody` step made optional; the same text when it has none, or when the
    /// alternatives would make it longer than `maximumLength`.
    static func rewrite(_ expression: String) -> String {
        guard expression.contains("tbody") else { return expression }
        return (try? rewritten(expression)) ?? expression
    }

    private static func rewritten(_ expression: String) throws -> String {
        guard expression.contains("tbody") else { return expression }
        return try render(tokens(Array(expression)))
    }

    private enum Token {
        case character(Character)
        /// A bracketed or parenthesised part, its inside already rewritten.
        case group(String)
        case literal(String)

        var text: String {
            switch self {
            case .character(let character): String(character)
            case .group(let text), .literal(let text): text
            }
        }

        var isPathPart: Bool {
            switch self {
            case .group: true
            case .literal: false
            case .character(let character):
                character.isLetter || character.isNumber || "_-./:*@$".contains(character) || !character.isASCII
            }
        }
    }

    private static func tokens(_ characters: [Character]) throws -> [Token] {
        var result: [Token] = []
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" || character == "\"" {
                let end = characters[(index + 1)...].firstIndex(of: character) ?? characters.count - 1
                result.append(.literal(String(characters[index...end])))
                index = end + 1
            } else if character == "[" || character == "(", let close = closing(characters, from: index) {
                let inner = try rewritten(String(characters[(index + 1)..<close]))
                result.append(.group(String(character) + inner + String(characters[close])))
                index = close + 1
            } else {
                result.append(.character(character))
                index += 1
            }
        }
        return result
    }

    /// The index of the bracket closing the one at `start`, skipping quoted text and nested brackets.
    private static func closing(_ characters: [Character], from start: Int) -> Int? {
        var depth = 0
        var quote: Character?
        for index in start..<characters.count {
            let character = characters[index]
            if let open = quote {
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"": quote = character
            case "[", "(": depth += 1
            case "]", ")":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
        }
        return nil
    }

    private static func render(_ tokens: [Token]) throws -> String {
        var output = ""
        var index = 0
        while index < tokens.count {
            guard tokens[index].isPathPart else {
                output += tokens[index].text
                index += 1
                continue
            }
            var end = index
            while end < tokens.count, tokens[end].isPathPart { end += 1 }
            output += try path(Array(tokens[index..<end]))
            index = end
        }
        guard output.utf8.count <= maximumLength else { throw TooLong() }
        return output
    }

    /// One location path: itself, or the union of its variants when it has `tbody` steps.
    private static func path(_ tokens: [Token]) throws -> String {
        var steps: [[Token]] = [[]]
        for token in tokens {
            if case .character("/") = token { steps.append([]) } else { steps[steps.count - 1].append(token) }
        }
        let texts = steps.map { $0.map(\.text).joined() }
        let optional = steps.filter { tableStep(for: $0) != nil }.count
        guard optional > 0, optional <= maximumSteps else { return texts.joined(separator: "/") }
        // Each variant copies every step's text: refuse before building them.
        guard texts.reduce(0, { $0 + $1.utf8.count }) << optional <= maximumLength else { throw TooLong() }
        return "(" + variants(steps, texts, from: 0).map { $0.joined(separator: "/") }.joined(separator: " | ") + ")"
    }

    /// Every combination of written and inserted `tbody` for the steps from `index` on.
    private static func variants(_ steps: [[Token]], _ texts: [String], from index: Int) -> [[String]] {
        guard index < steps.count else { return [[]] }
        guard let table = tableStep(for: steps[index]) else {
            return variants(steps, texts, from: index + 1).map { [texts[index]] + $0 }
        }
        let (replacement, consumed) = inserted(table.step, following: Array(texts[(index + 1)...]))
        let alternative = variants(steps, texts, from: index + 1 + consumed).map { replacement + $0 }
        if table.coversWritten { return alternative }
        return variants(steps, texts, from: index + 1).map { [texts[index]] + $0 } + alternative
    }

    /// The steps standing for an inserted `tbody` and what follows it, and how many following steps they replace.
    ///
    /// A child step (`tbody/tr`) reaches the table's own rows from the table itself. A descendant step
    /// (`tbody/descendant::tr`, `tbody//td`) must not reach `thead` or `tfoot` rows, so it starts from the
    /// table's own rows, themselves included.
    private static func inserted(_ table: String, following: [String]) -> ([String], Int) {
        func plain(_ step: String) -> Bool { !step.contains("::") && !step.contains("[") && !step.hasPrefix("@") }
        if let next = following.first, !next.contains("[") {
            for axis in ["descendant::", "descendant-or-self::"] where next.hasPrefix(axis) {
                return ([table, "tr", "descendant-or-self::" + next.dropFirst(axis.count)], 1)
            }
            if next.isEmpty, following.count > 1, plain(following[1]), !following[1].isEmpty {
                return ([table, "tr", "descendant-or-self::" + following[1]], 2)
            }
        }
        return ([table], 0)
    }

    /// The step standing for the table when `step` is a `tbody` jsoup may have inserted, or nil for any other step;
    /// `coversWritten` when it also stands for a written `tbody`, replacing the step rather than adding a branch.
    private static func tableStep(for step: [Token]) -> (step: String, coversWritten: Bool)? {
        let head = step.prefix { if case .character = $0 { true } else { false } }.map(\.text).joined()
        let predicates = step.dropFirst(head.count).map(\.text)
        let isChild: Bool
        switch head {
        case "tbody", "child::tbody": isChild = true
        case "descendant::tbody", "descendant-or-self::tbody": isChild = false
        default: return nil
        }
        // Only a table with rows of its own had a tbody inserted: one that wrote its tbody is matched as written.
        guard predicates.isEmpty || predicates == ["[1]"] else { return nil }
        if isChild { return ("self::table[tr]", false) }
        // The first `tbody` below the context (`tag.tbody.0`) is the first written one or bare table, whichever
        // comes first: one step over both.
        if !predicates.isEmpty { return ("descendant-or-self::*[self::tbody or self::table[tr]][1]", true) }
        return ("descendant-or-self::table[tr]", false)
    }
}
