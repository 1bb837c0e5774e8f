/// What a snippet's text shows without running it, so an evaluation does only the work the snippet can
/// observe: which bindings it names, whether it can reach the global object (and so the bindings as
/// globals), whether it can leave a global behind, and whether it is one expression.
///
/// Every answer errs on the side of doing the work: a name inside a string or a comment counts as named,
/// any `=` that could be an assignment counts as one.
struct SnippetReading {
    /// The bindings, in the order of the compiled function's parameters (see `CompiledSnippet`).
    static let bindingNames = ["result", "src", "baseUrl", "key", "page", "book", "chapter", "title", "nextChapterUrl"]
    /// Names through which code reaches the global object or builds code at run time, and so could read a
    /// binding it does not name (`this.result`, `eval('res' + 'ult')`, `Function('return src')`).
    static let dynamicNames = ["this", "globalThis", "eval", "Function", "constructor", "arguments"]

    /// For each of `bindingNames`, whether the text names it.
    let names: [Bool]
    /// Whether the text names one of `dynamicNames` (or spells an identifier with an escape).
    let reachesGlobals: Bool
    /// Whether running the text can create a global: an assignment (`x = 1` without a declaration makes one
    /// in sloppy mode), a `for … in/of` loop over an undeclared name, or any dynamic reach.
    let mayCreateGlobals: Bool
    /// The text as one expression to return, when the snippet is provably a single expression statement
    /// (its completion value is that expression's value): the text less trailing semicolons, when it does
    /// not start with what an expression statement cannot (`{`, `function`, `class`, `async`, `let`) and
    /// has no HTML-like comment (`<!--`, `-->`, which would read differently after `return (`). Whether it
    /// really is one expression is settled by compiling `return (expression)`: a script that also parses as
    /// one parenthesised expression is one statement, as neither `;` nor automatic semicolon insertion can
    /// separate statements inside parentheses.
    let expressionCandidate: String?
    /// Whether the snippet may be run for many list elements in one call (`ScriptWorker.evaluateEach`): it
    /// reaches neither the global object nor the host (no helper object, no prelude global such as `print`
    /// or `org.jsoup`, so no `java.put`, fetch, cookie, cache or log), and names no binding that varies per
    /// element besides `result` (`src`, `book`, `chapter`, which are made per element). Its value for one
    /// element then depends on that element's `result` and the step's bindings only (the globals it may
    /// create are removed after each element, as after each evaluation).
    let runsForEach: Bool

    /// Names through which a snippet reaches the host or the evaluation's frame: the helper objects and the
    /// prelude's other globals (see `globals` in prelude.js).
    static let hostNames = PreludeFunctions.helperNames + ["print", "Packages", "javax", "com", "net", "edu", "org"]
    /// The bindings whose value differs per list element (or is made afresh for each evaluation).
    static let perElementBindings: Set<String> = ["src", "book", "chapter"]

    init(_ code: String) {
        let bytes = Array(code.utf8)
        let escaped = code.contains("\\u")
        names = Self.bindingNames.map { escaped || Self.mentions($0, in: bytes) }
        reachesGlobals = escaped || Self.dynamicNames.contains { Self.mentions($0, in: bytes) }
        mayCreateGlobals = reachesGlobals || Self.hasAssignment(bytes) || Self.mentions("for", in: bytes)
        expressionCandidate = Self.expression(code, bytes: bytes)
        let namesPerElementBinding = zip(Self.bindingNames, names).contains { name, named in
            named && Self.perElementBindings.contains(name)
        }
        runsForEach = !reachesGlobals && !namesPerElementBinding
            && !Self.hostNames.contains { Self.mentions($0, in: bytes) }
    }

    /// Whether `name` occurs in `bytes` as a whole word (not inside a longer identifier).
    static func mentions(_ name: String, in bytes: [UInt8]) -> Bool {
        let word = Array(name.utf8)
        guard word.count <= bytes.count else { return false }
        var index = 0
        while index + word.count <= bytes.count {
            if bytes[index] == word[0], bytes[index..<(index + word.count)].elementsEqual(word),
               index == 0 || !isIdentifierByte(bytes[index - 1]),
               index + word.count == bytes.count || !isIdentifierByte(bytes[index + word.count]) {
                return true
            }
            index += 1
        }
        return false
    }

    /// Letters, digits, `_`, `$` and every byte of a non-ASCII character (which may be part of a name).
    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...:
            return true
        default:
            return false
        }
    }

    /// Whether some `=` in `bytes` may be an assignment: any `=` except those of `==`, `===`, `!=`, `!==`,
    /// `<=`, `>=` and `=>` (`<<=`, `>>=` and `>>>=` are assignments).
    static func hasAssignment(_ bytes: [UInt8]) -> Bool {
        let equals = UInt8(ascii: "=")
        var index = 0
        while index < bytes.count {
            guard bytes[index] == equals else {
                index += 1
                continue
            }
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            if next == equals {
                // `==` or `===` (or `!==`): skip the run.
                while index < bytes.count, bytes[index] == equals { index += 1 }
                continue
            }
            if next == UInt8(ascii: ">") {
                index += 2
                continue
            }
            let previous = index > 0 ? bytes[index - 1] : 0
            if previous == UInt8(ascii: "!") {
                index += 1
                continue
            }
            if previous == UInt8(ascii: "<") || previous == UInt8(ascii: ">") {
                // `<=`/`>=` compare; `<<=`, `>>=`, `>>>=` assign.
                if index < 2 || bytes[index - 2] != previous { index += 1; continue }
            }
            return true
        }
        return false
    }

    /// See `expressionCandidate`.
    private static func expression(_ code: String, bytes: [UInt8]) -> String? {
        if code.contains("<!--") || code.contains("-->") { return nil }
        // Leading blanks and comments are skipped to find the first token, and kept (for line numbers).
        var start = 0
        while start < bytes.count {
            let byte = bytes[start]
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                start += 1
            } else if byte == UInt8(ascii: "/"), start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "/") {
                while start < bytes.count, bytes[start] != UInt8(ascii: "\n") { start += 1 }
            } else if byte == UInt8(ascii: "/"), start + 1 < bytes.count, bytes[start + 1] == UInt8(ascii: "*") {
                var end = start + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                guard end + 1 < bytes.count else { return nil }
                start = end + 2
            } else {
                break
            }
        }
        guard start < bytes.count, bytes[start] != UInt8(ascii: "{"), bytes[start] < 0x80 else { return nil }
        for keyword in ["function", "class", "async", "let"] {
            let word = Array(keyword.utf8)
            if bytes.count - start >= word.count, bytes[start..<(start + word.count)].elementsEqual(word),
               start + word.count == bytes.count || !isIdentifierByte(bytes[start + word.count]) {
                return nil
            }
        }
        // Trailing blanks and semicolons: `e;` and `e;;` complete with the value of `e`. A final `;` is a
        // statement's end or part of a comment (inside a string or template it would leave it unclosed).
        var end = bytes.count
        while end > start {
            let byte = bytes[end - 1]
            guard byte == UInt8(ascii: ";") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") else { break }
            end -= 1
        }
        guard end > start else { return nil }
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
