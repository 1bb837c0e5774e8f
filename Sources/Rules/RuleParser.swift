import Foundation
import BookRuleDocument
import BookRuleJSON
import BookRuleRegex

/// Parses rule strings into compiled `Rule`s, detecting the dialect in Legado's order (docs/source-format.md).
public enum RuleParser {
    /// Parses one rule.
    /// - Parameters:
    ///   - text: the rule as written.
    ///   - field: its path in the source, for error messages (`ruleToc.chapterList`).
    ///   - kind: whether it is a list rule, a string rule, or a field under an AllInOne list rule.
    public static func parse(_ text: String, field: String, kind: RuleKind) throws(RuleError) -> Rule {
        // Templates nest ({{…{{…}}…}}) and parse recursively; a hostile source must not exhaust the stack.
        var depth = 0
        var deepest = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "{") { depth += 1; deepest = max(deepest, depth) }
            if byte == UInt8(ascii: "}") { depth = max(0, depth - 1) }
        }
        guard deepest <= 64 else {
            throw RuleError(field: field, dialect: nil, reason: "braces nest \(deepest) deep; at most 64 are supported", rule: text)
        }
        var working = text.trimmingASCIIWhitespace()
        var reversed = false
        if kind == .list {
            if working.hasPrefix("-") {
                reversed = true
                working.removeFirst()
            } else if working.hasPrefix("+") {
                working.removeFirst()
            }
        }
        var puts: [(key: String, rule: RuleBody)] = []
        if !isJavaScript(working) {
            let extracted = try extractPuts(from: working, field: field, kind: kind)
            working = extracted.remaining
            puts = extracted.puts
        } else if let firstScript = firstScriptStart(in: working), working[..<firstScript].contains("@put:{") {
            // `@put:{…}` in the rule part before the JavaScript is taken out as in any rule (Legado does so per
            // step); inside the script it is the script's own text.
            let extracted = try extractPuts(from: String(working[..<firstScript]), field: field, kind: kind)
            working = extracted.remaining + working[firstScript...]
            puts = extracted.puts
        }
        let parsed = try parseBody(working, field: field, kind: kind, allowDynamic: true)
        return Rule(text: text, field: field, kind: kind, dialect: parsed.dialect, reversed: reversed,
                    body: parsed.body, puts: puts)
    }

    /// The dialect a rule string is written in, checked in Legado's order.
    public static func dialect(of text: String, kind: RuleKind) -> RuleDialect {
        let rule = text.trimmingASCIIWhitespace()
        let lower = rule.lowercased()
        if lower.hasPrefix("@css:") { return .css }
        if rule.hasPrefix("@@") { return .jsoup }
        if lower.hasPrefix("@xpath:") { return .xpath }
        if lower.hasPrefix("@json:") || rule.hasPrefix("$.") || rule.hasPrefix("$[") { return .jsonPath }
        if rule.hasPrefix("/") { return .xpath }
        if kind == .list && rule.hasPrefix(":") { return .allInOne }
        if isJavaScript(rule) { return .javaScript }
        return .jsoup
    }

    /// Where the first `@js:` or `<js>` of `text` starts.
    private static func firstScriptStart(in text: String) -> String.Index? {
        let lower = text.lowercased()
        guard lower.count == text.count else { return nil }
        let candidates = ["@js:", "<js>"].compactMap { lower.range(of: $0)?.lowerBound }
        guard let first = candidates.min() else { return nil }
        return text.index(text.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: first))
    }

    /// Whether a rule holds JavaScript: Legado splits `@js:` (to the end) and `<js>…</js>` out of a rule wherever
    /// they are, so `$.v@js:…` is a JSONPath followed by JavaScript, not a JSONPath with an odd name.
    package static func isJavaScript(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard lower.contains("@js:") || (lower.contains("<js>") && lower.contains("</js>")) else { return false }
        return ScriptSplitter.split(text).contains { if case .script = $0 { true } else { false } }
    }

    // MARK: - Body

    static func parseBody(_ raw: String, field: String, kind: RuleKind, allowDynamic: Bool) throws(RuleError) -> (body: RuleBody, dialect: RuleDialect?) {
        let text = raw.trimmingASCIIWhitespace()
        if text.isEmpty { return (.empty, nil) }
        func fail(_ dialect: RuleDialect?, _ reason: String) -> RuleError {
            RuleError(field: field, dialect: dialect, reason: reason, rule: raw)
        }

        if kind == .list && text.hasPrefix(":") {
            var patterns: [RegexPattern] = []
            for piece in String(text.dropFirst()).components(separatedBy: "&&") {
                do {
                    patterns.append(try RegexPattern(piece))
                } catch {
                    throw fail(.allInOne, "\(error)")
                }
            }
            return (.allInOne(patterns), .allInOne)
        }
        if isJavaScript(text) {
            var steps: [ChainStep] = []
            for part in ScriptSplitter.split(text) {
                switch part {
                case .rule(let rule):
                    steps.append(.rule(try parseBody(rule, field: field, kind: kind, allowDynamic: allowDynamic).body))
                case .script(let code, let placement):
                    // Legado cuts a script step at `##` too, as any step: `@js:code##regex##replacement` runs the
                    // code, then the replacement on its result (and so does it inside a string literal).
                    let pieces = code.components(separatedBy: "##")
                    steps.append(try scriptStep(pieces[0], field: field, placement: placement))
                    if pieces.count > 1, kind != .list, !pieces[1].isEmpty {
                        let pattern: RegexPattern
                        do {
                            pattern = try RegexPattern(pieces[1])
                        } catch {
                            throw fail(.regex, "\(error)")
                        }
                        let replacement = RegexReplacement(pattern: pattern,
                                                           replacement: JavaReplacement(pieces.count > 2 ? pieces[2] : ""),
                                                           firstOnly: pieces.count > 3)
                        steps.append(.rule(.replace(.rawText, replacement)))
                    }
                }
            }
            return (.chain(steps, kind: kind), .javaScript)
        }

        // `rule##regex##replacement###` applies to the whole rule part, as in Legado.
        if let split = RuleScanner.topLevelOccurrences(of: "##", in: text).first {
            let bytes = Array(text.utf8)
            let rulePart = String(decoding: bytes[..<split], as: UTF8.self)
            var rest = String(decoding: bytes[(split + 2)...], as: UTF8.self)
            let firstOnly = rest.hasSuffix("###")
            if firstOnly { rest.removeLast(3) }
            let regexText: String
            let replacementText: String
            if let separator = rest.range(of: "##") {
                regexText = String(rest[..<separator.lowerBound])
                replacementText = String(rest[separator.upperBound...])
            } else {
                regexText = rest
                replacementText = ""
            }
            let inner = rulePart.trimmingASCIIWhitespace().isEmpty
                ? (body: RuleBody.rawText, dialect: RuleDialect?.some(.regex))
                : try parseBody(rulePart, field: field, kind: kind, allowDynamic: allowDynamic)
            // Legado ignores replacements on list rules; so do we.
            if kind == .list { return inner }
            if regexText.isEmpty { return inner }
            let pattern: RegexPattern
            do {
                pattern = try RegexPattern(regexText)
            } catch {
                throw fail(.regex, "\(error)")
            }
            let replacement = RegexReplacement(pattern: pattern, replacement: JavaReplacement(replacementText),
                                               firstOnly: firstOnly)
            return (.replace(inner.body, replacement), inner.dialect)
        }

        let detected = dialect(of: text, kind: kind)
        // Legado's JSON mode embeds values as `{$.path}` in text, e.g. a URL `https://x.test/book/{$.id}/`.
        if detected != .jsonPath, text.contains("{$."), !text.contains("{{"),
           detected != .xpath || (try? XPathExpression(text)) == nil {
            do {
                return (.jsonTemplate(try JSONTemplate(text)), .jsonPath)
            } catch {
                throw fail(.jsonPath, error.description)
            }
        }
        let hasTemplate = text.contains("{{") || text.contains("@get:{")
        if kind == .groupField || text.hasPrefix("{{") || text.hasPrefix("@get:{")
            || (hasTemplate && detected == .jsoup) || (hasTemplate && detected == .xpath && !isTemplatedXPath(text)) {
            // Text with embedded values: a URL like `/toc.php?bid={{@get:{bid}}}` is a template, not XPath.
            let pieces = try parseTemplate(text, field: field, groups: kind == .groupField)
            return (.template(pieces), kind == .groupField ? .groupReference : .template)
        }

        if let combined = try parseCombination(text, field: field, kind: kind, allowDynamic: allowDynamic) {
            return combined
        }

        if detected == .jsonPath {
            var expression = text
            if expression.lowercased().hasPrefix("@json:") { expression = String(expression.dropFirst(6)) }
            do {
                return (.jsonPath(try JSONPath(expression.trimmingASCIIWhitespace())), .jsonPath)
            } catch {
                throw fail(.jsonPath, error.description)
            }
        }
        if detected == .css || detected == .jsoup {
            // A rule without any prefix is JSONPath when Legado meets it on JSON (`name` is `$.name`).
            let json = detected == .jsoup && !text.hasPrefix("@@") ? try? JSONPath("$." + text) : nil
            // Legado's JSoup segments and CSS selectors run as XPath translations on libxml2.
            do {
                let translation = try JSoupRuleTranslator.translate(text, isList: kind == .list)
                let expression = try XPathExpression(TableBodyAlternatives.rewrite(translation.xpath))
                let html = RuleBody.xpath(XPathRule(expression: expression, extractor: .value, simple: nil,
                                                    jsoup: kind == .list ? nil : translation.extractor,
                                                    reversed: translation.reversed))
                return (json.map { .byContent(html: html, json: .jsonPath($0)) } ?? html, detected)
            } catch let error as CSSTranslationError {
                // Not a selector, but a JSON path (`data.list[*]`): it only means something on JSON.
                if let json { return (.jsonPath(json), .jsonPath) }
                throw fail(detected, error.description)
            } catch {
                if let json { return (.jsonPath(json), .jsonPath) }
                throw fail(detected, "the translation to XPath failed: \(error)")
            }
        }
        guard detected == .xpath else { // Every dialect runs; this is a detection the parser does not expect here, such as a group
        // reference outside an AllInOne list.
        throw fail(detected, "a \(detected.rawValue) rule cannot stand here") }
        if hasTemplate {
            guard allowDynamic else { throw fail(.xpath, "a substituted value must not contain another {{…}} or @get:{…}") }
            // The shape was checked with placeholder values; the real text is compiled when it is known.
            let pieces = try parseTemplate(text, field: field, groups: false)
            return (.dynamic(DynamicRule(text: text, field: field, kind: kind, pieces: pieces)), .xpath)
        }
        var expression = text
        if expression.lowercased().hasPrefix("@xpath:") { expression = String(expression.dropFirst(7)) }
        return (.xpath(try compileXPath(expression, field: field, raw: raw)), .xpath)
    }

    /// Whether an XPath-looking rule with `{{…}}`/`@get:{…}` inside is still XPath once values are filled in
    /// (`//a[@id='@get:{id}']`), rather than a URL template that happens to start with `/`.
    private static func isTemplatedXPath(_ text: String) -> Bool {
        var placeholder = substituteVariables(in: text) { _ in "x" }
        while let open = placeholder.range(of: "{{"), let close = placeholder.range(of: "}}", range: open.upperBound..<placeholder.endIndex) {
            placeholder.replaceSubrange(open.lowerBound..<close.upperBound, with: "x")
        }
        var expression = placeholder
        if expression.lowercased().hasPrefix("@xpath:") { expression = String(expression.dropFirst(7)) }
        return (try? XPathExpression(expression)) != nil
    }

    /// Splits on the first top-level combinator found (`&&`, `||` or `%%`), as Legado does; each part is a rule
    /// of its own (and may use another dialect).
    private static func parseCombination(_ text: String, field: String, kind: RuleKind, allowDynamic: Bool) throws(RuleError) -> (body: RuleBody, dialect: RuleDialect?)? {
        var best: (operator: String, offset: Int)?
        for op in ["&&", "||", "%%"] {
            if let offset = RuleScanner.topLevelOccurrences(of: op, in: text).first, offset < (best?.offset ?? Int.max) {
                best = (op, offset)
            }
        }
        guard let best else { return nil }
        var bodies: [RuleBody] = []
        var firstDialect: RuleDialect?
        for piece in RuleScanner.split(text, by: best.operator) {
            let parsed = try parseBody(piece, field: field, kind: kind, allowDynamic: allowDynamic)
            if firstDialect == nil { firstDialect = parsed.dialect }
            bodies.append(parsed.body)
        }
        switch best.operator {
        case "&&": return (.concatenation(bodies), firstDialect)
        case "||": return (.firstNonEmpty(bodies), firstDialect)
        default: return (.interleaving(bodies), firstDialect)
        }
    }

    // MARK: - XPath

    /// XPath 1.0's functions and node tests. libxml2 compiles a call to anything else (XPath 2's ends-with,
    /// say) and only fails when the call runs, once per chapter; checking names at load reports it once.
    private static let xpathFunctions: Set<String> = [
        "last", "position", "count", "id", "local-name", "namespace-uri", "name", "string", "concat", "starts-with",
        "contains", "substring-before", "substring-after", "substring", "string-length", "normalize-space",
        "translate", "boolean", "not", "true", "false", "lang", "number", "sum", "floor", "ceiling", "round",
        "text", "node", "comment", "processing-instruction", "escape-uri",
    ]

    /// XPath 1.0's operator names: followed by `(` they start a parenthesised operand.
    private static let xpathOperatorNames: Set<String> = ["or", "and", "mod", "div"]

    /// The first function called in `expression` that XPath 1.0 does not have.
    private static func unknownFunction(in expression: String) -> String? {
        let scalars = Array(expression.unicodeScalars)
        var quote: Unicode.Scalar?
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if let open = quote {
                if scalar == open { quote = nil }
                index += 1
                continue
            }
            if scalar == "'" || scalar == "\"" { quote = scalar; index += 1; continue }
            guard scalar.isASCIILetter else { index += 1; continue }
            var end = index
            while end < scalars.count, scalars[end].isASCIILetter || scalars[end] == "-" || scalars[end] == "_"
                || ("0"..."9").contains(scalars[end]) || scalars[end] == ":" {
                end += 1
            }
            let name = String(String.UnicodeScalarView(scalars[index..<end]))
            var next = end
            while next < scalars.count, scalars[next] == " " { next += 1 }
            let isAxis = next + 1 < scalars.count && scalars[next] == ":" && scalars[next + 1] == ":"
            let previous = index > 0 ? scalars[index - 1] : " "
            // `or`, `and`, `mod` and `div` before a parenthesis are operators (`a or (b)`), never functions.
            if next < scalars.count, scalars[next] == "(", !isAxis, previous != "@", !name.contains(":"),
               !xpathFunctions.contains(name), !xpathOperatorNames.contains(name) {
                return name
            }
            index = end
        }
        return nil
    }

    private static let extractorSuffixes: [(suffix: String, extractor: XPathExtractor)] = [
        ("/allText()", .allText), ("/html()", .html), ("/outerHtml()", .outerHTML),
    ]

    private static func compileXPath(_ text: String, field: String, raw: String) throws(RuleError) -> XPathRule {
        var expression = text.trimmingASCIIWhitespace()
        var extractor = XPathExtractor.value
        for (suffix, kind) in extractorSuffixes where expression.hasSuffix(suffix) {
            expression.removeLast(suffix.count)
            extractor = kind
            break
        }
        if let name = unknownFunction(in: expression) {
            throw RuleError(field: field, dialect: .xpath, reason: "\(name)() is not an XPath 1.0 function", rule: raw)
        }
        do {
            // Compile as written first, so libxml2's offset points into what the author wrote.
            _ = try XPathExpression(expression)
            let relative = XPathRewriter.contextRelative(expression)
            let rewritten = TableBodyAlternatives.rewrite(relative)
            let compiled = try XPathExpression(rewritten)
            // The fast path walks the path as written; a `tbody` made optional needs libxml2's union.
            let simple = rewritten == relative ? SimpleXPath(expression) : nil
            return XPathRule(expression: compiled, extractor: extractor, simple: simple)
        } catch {
            throw RuleError(field: field, dialect: .xpath, reason: error.description, rule: raw)
        }
    }

    // MARK: - Templates and variables

    private static func parseTemplate(_ text: String, field: String, groups: Bool) throws(RuleError) -> [TemplatePiece] {
        var pieces: [TemplatePiece] = []
        var literal = ""
        var index = text.startIndex
        func flush() {
            if !literal.isEmpty { pieces.append(.literal(literal)) }
            literal = ""
        }
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("{{"), let close = matchingClose(in: rest) {
                flush()
                let inner = String(rest[rest.index(index, offsetBy: 2)..<close]).trimmingASCIIWhitespace()
                pieces.append(.rule(try parseEmbedded(inner, field: field)))
                index = text.index(close, offsetBy: 2)
                continue
            }
            if rest.hasPrefix("@get:{"), let close = rest.firstIndex(of: "}") {
                flush()
                pieces.append(.variable(String(rest[rest.index(index, offsetBy: 6)..<close])))
                index = text.index(after: close)
                continue
            }
            if groups, rest.hasPrefix("$") {
                let digits = rest.dropFirst().prefix { $0.isASCII && $0.isNumber }.prefix(2)
                if let number = Int(digits) {
                    flush()
                    pieces.append(.group(number))
                    index = text.index(index, offsetBy: 1 + digits.count)
                    continue
                }
            }
            literal.append(text[index])
            index = text.index(after: index)
        }
        flush()
        return pieces
    }

    /// The index of the `}}` closing the `{{` at the start of `text`, counting nested braces.
    private static func matchingClose(in text: Substring) -> String.Index? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "{" { depth += 1 }
            if character == "}" {
                depth -= 1
                if depth == 1, text[index...].hasPrefix("}}") { return index }
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// A script step: plain, or templated when the code holds `{{…}}` or `@get:{key}` (Legado substitutes those in
    /// JavaScript too, before running it: a title spliced into a regex literal, the keyword into a string).
    private static func scriptStep(_ code: String, field: String, placement: ScriptSnippet.Placement) throws(RuleError) -> ChainStep {
        let plain = ChainStep.script(ScriptSnippet(code: code, field: field, placement: placement))
        guard code.contains("{{") || code.contains("@get:{") else { return plain }
        let pieces = try parseTemplate(code, field: field, groups: false)
        guard pieces.contains(where: { if case .literal = $0 { false } else { true } }) else { return plain }
        let checked = pieces.map { piece -> String in
            if case .literal(let text) = piece { return text }
            return "0"
        }.joined()
        return .templatedScript(ScriptSnippet(code: checked, field: field, placement: placement), pieces)
    }

    /// A rule inside `{{…}}`: a rule in any dialect that starts like one; anything else would be JavaScript.
    private static func parseEmbedded(_ inner: String, field: String) throws(RuleError) -> RuleBody {
        let looksLikeRule = inner.hasPrefix("@") || inner.hasPrefix("/") || inner.hasPrefix("$.") || inner.hasPrefix("$[")
        guard looksLikeRule else {
            return .chain([.script(ScriptSnippet(code: inner, field: field, placement: .template))], kind: .string)
        }
        return try parseBody(inner, field: field, kind: .string, allowDynamic: true).body
    }

    /// Removes every `@put:{"key":"rule", …}` from `text`, parsing the rules it stores.
    private static func extractPuts(from text: String, field: String, kind: RuleKind) throws(RuleError) -> (remaining: String, puts: [(key: String, rule: RuleBody)]) {
        guard text.contains("@put:{") else { return (text, []) }
        var remaining = ""
        var puts: [(key: String, rule: RuleBody)] = []
        var rest = Substring(text)
        while let start = rest.range(of: "@put:{") {
            remaining += rest[..<start.lowerBound]
            let objectStart = rest.index(before: start.upperBound)
            guard let objectEnd = BalancedBraces.close(in: rest[objectStart...]) else {
                throw RuleError(field: field, dialect: nil, reason: "@put:{ is not closed", rule: text)
            }
            let json = String(rest[objectStart...objectEnd])
            let object: JSONObject
            do {
                guard case .object(let parsed) = try JSONParser.parse(json, lenient: true).value else {
                    throw RuleError(field: field, dialect: nil, reason: "@put needs an object", rule: text)
                }
                object = parsed
            } catch let error as RuleError {
                throw error
            } catch {
                throw RuleError(field: field, dialect: nil, reason: "@put:\(json) is not valid JSON: \(error)", rule: text)
            }
            for (key, node) in object.members {
                guard let ruleText = node.value.stringValue else {
                    throw RuleError(field: field, dialect: nil, reason: "@put value for \"\(key)\" must be a rule string", rule: text)
                }
                let putKind: RuleKind = kind == .groupField ? .groupField : .string
                puts.append((key, try parseBody(ruleText, field: "\(field)@put.\(key)", kind: putKind, allowDynamic: true).body))
            }
            rest = rest[rest.index(after: objectEnd)...]
        }
        remaining += rest
        return (remaining, puts)
    }

    /// `text` with every `@get:{key}` replaced by `value(key)`.
    static func substituteVariables(in text: String, value: (String) -> String) -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "@get:{"), let close = rest[start.upperBound...].firstIndex(of: "}") {
            result += rest[..<start.lowerBound]
            result += value(String(rest[start.upperBound..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }
}
