import BookRuleDocument
import BookRuleHTTP
import BookRuleJSON
import BookRuleRules

/// A source's URL with templates, e.g. `/search.php?q={{key}}&p={{page}},{"method":"POST","charset":"gbk"}`.
///
/// Parsed once at load: `{{key}}`, `{{page}}` with small arithmetic (`{{(page-1)*20}}`), `<a,b,c>` chosen by
/// page number, and the options object after `,{` (lenient JSON: method, body, charset, headers, js). Anything
/// else in `{{…}}` is JavaScript, as Legado reads URLs; so are `@js:` and `<js>…</js>`, which run first and whose
/// result is the template (Legado's `AnalyzeUrl`), and the `js` option, which gets the finished URL as `result`
/// and may replace it.
public struct URLTemplate: Sendable {
    /// The template as written.
    public let text: String
    /// The field it came from, for errors.
    public let field: String
    let url: [URLTemplatePiece]
    let body: [URLTemplatePiece]?
    /// What the body is, by its first character: Legado URL-encodes the key and script values only in a form
    /// body; JSON (`{`, `[`) and XML (`<`) go as written, with the key as typed.
    let bodyFormat: BodyFormat

    enum BodyFormat {
        case form, json, xml
    }
    /// `GET` or `POST`.
    public let method: String
    /// The charset the site expects: used to percent-encode the key and to decode the response.
    public let charset: String?
    /// Extra headers from the options.
    public let headers: [HTTPHeader]
    /// `@js:`/`<js>` parts that compute the template itself; nil for a template written out.
    let scriptPass: [ScriptSplitter.Part]?
    /// The `js` option: run on the finished URL.
    let optionScript: ScriptSnippet?
    /// The `webView` option and its companions; nil when the page is fetched, not rendered.
    public let webView: WebViewOptions?

    /// Every piece of JavaScript in the template, for checks at load.
    public var scripts: [ScriptSnippet] {
        var found: [ScriptSnippet] = []
        for part in scriptPass ?? [] {
            if case .script(let code, let placement) = part {
                found.append(ScriptSnippet(code: code, field: field, placement: placement))
            }
        }
        func collect(_ pieces: [URLTemplatePiece]) {
            for piece in pieces {
                switch piece {
                case .script(let snippet): found.append(snippet)
                case .byPage(let choices): choices.forEach(collect)
                case .literal, .key, .page: break
                }
            }
        }
        collect(url)
        collect(body ?? [])
        if let optionScript { found.append(optionScript) }
        return found
    }

    /// Parses a template; errors name `field` and say what is not supported.
    public init(_ text: String, field: String) throws(RuleError) {
        self.text = text
        self.field = field
        func fail(_ reason: String, _ dialect: RuleDialect? = nil) -> RuleError {
            RuleError(field: field, dialect: dialect, reason: reason, rule: text)
        }
        let trimmed = text.trimmingASCIIWhitespace()
        if RuleParser.isJavaScript(trimmed) {
            // What the template is becomes known only when the script runs.
            scriptPass = ScriptSplitter.split(trimmed)
            url = []
            body = nil
            bodyFormat = .form
            method = "GET"
            charset = nil
            headers = []
            optionScript = nil
            webView = nil
            return
        }
        scriptPass = nil
        var urlText = trimmed
        var options = JSONObject(members: [])
        if let split = Self.optionsStart(in: trimmed) {
            urlText = String(trimmed[..<split.comma]).trimmingASCIIWhitespace()
            let optionText = String(trimmed[split.brace...])
            do {
                guard case .object(let object) = try JSONParser.parse(optionText, lenient: true).value else {
                    throw fail("the options after the URL must be an object")
                }
                options = object
            } catch let error as RuleError {
                throw error
            } catch {
                throw fail("the options after the URL are not valid JSON: \(error)")
            }
        }
        if options["bodyJs"] != nil {
            throw fail("the bodyJs option is not one Legado reads; compute the body in the URL's JavaScript instead", .javaScript)
        }
        if let node = options["js"] {
            guard let code = node.value.stringValue else { throw fail("the js option must be a string of JavaScript", .javaScript) }
            optionScript = ScriptSnippet(code: code, field: field, placement: .whole)
        } else {
            optionScript = nil
        }
        url = try Self.pieces(urlText, field: field, whole: text)
        webView = WebViewOptions.reading(options)
        method = (options["method"]?.value.stringValue ?? "GET").uppercased()
        if let bodyNode = options["body"] {
            let bodyText: String
            switch bodyNode.value {
            case .string(let value): bodyText = value
            default: bodyText = bodyNode.value.serialized()
            }
            body = try Self.pieces(bodyText, field: field, whole: text)
            switch bodyText.trimmingASCIIWhitespace().first {
            case "{", "[": bodyFormat = .json
            case "<": bodyFormat = .xml
            default: bodyFormat = .form
            }
        } else {
            body = nil
            bodyFormat = .form
        }
        if let label = options["charset"]?.value.stringValue, !label.isEmpty {
            do {
                charset = try CharsetDetector.canonicalName(label)
            } catch {
                throw fail(error.description)
            }
        } else {
            charset = nil
        }
        var headers: [HTTPHeader] = []
        if let headerNode = options["headers"] {
            do {
                headers = try BookSource.headers(from: headerNode)
            } catch {
                throw fail("headers: \(error.reason)")
            }
        }
        self.headers = headers
    }

    /// Whether building a request runs JavaScript (so needs `script`).
    public var needsScript: Bool { !scripts.isEmpty }

    /// Builds the request for a search key and page, resolved against `baseURL`. `script` runs the template's
    /// JavaScript (bound to the same key and page); `environment` carries the book's variables to it.
    public func request(key: String = "", page: Int = 1, baseURL: String, sourceHeaders: [HTTPHeader] = [],
                        script: (any ScriptEvaluating)? = nil,
                        variables: RuleVariables = RuleVariables()) throws(RuleError) -> HTTPRequest {
        try resolved(key: key, page: page, baseURL: baseURL, sourceHeaders: sourceHeaders, script: script, variables: variables).request
    }

    /// `request(key:page:baseURL:sourceHeaders:script:variables:)` with the `webView` options of the template
    /// it came to (a script pass's result may ask for a browser).
    public func resolved(key: String = "", page: Int = 1, baseURL: String, sourceHeaders: [HTTPHeader] = [],
                         script: (any ScriptEvaluating)? = nil,
                         variables: RuleVariables = RuleVariables()) throws(RuleError) -> (request: HTTPRequest, webView: WebViewOptions?) {
        let environment = RuleEnvironment(baseURL: baseURL, variables: variables, script: script)
        if let scriptPass {
            let computed = try runScriptPass(scriptPass, environment: environment)
            // Legado runs the script pass once: a script that gives JavaScript again is an error, not a loop.
            guard !RuleParser.isJavaScript(computed) else {
                throw RuleError(field: field, dialect: .javaScript,
                                reason: "the URL's script gave JavaScript again (\"\(computed.prefix(60))\") instead of a URL", rule: text)
            }
            return try URLTemplate(computed, field: field).resolved(key: key, page: page, baseURL: baseURL,
                                                                     sourceHeaders: sourceHeaders, script: script,
                                                                     variables: variables)
        }
        let encodedKey: String
        do {
            encodedKey = try URLEncoding.component(key, charset: charset ?? "UTF-8")
        } catch {
            throw RuleError(field: field, dialect: nil, reason: error.description, rule: text)
        }
        var urlText = try render(url, key: encodedKey, page: page, environment: environment)
        if let optionScript {
            let replaced = try run(optionScript, result: .text(urlText), environment: environment)
            if !replaced.isEmpty { urlText = replaced }
        }
        guard let absolute = URLReference.resolve(urlText, against: baseURL), URLReference.isHTTP(absolute) else {
            throw RuleError(field: field, dialect: nil,
                            reason: "\"\(urlText)\" does not resolve to an http(s) URL against \(baseURL)", rule: text)
        }
        var headers = sourceHeaders
        for header in self.headers { headers.set(header.name, header.value) }
        var bodyBytes: [UInt8]?
        if let body {
            // In a JSON body the key goes in as typed, escaped as JSON string text (Legado puts it in raw, which
            // breaks on a quote); in XML as typed.
            let bodyKey = switch bodyFormat {
            case .form: encodedKey
            case .json: Self.jsonStringContent(key)
            case .xml: key
            }
            let rendered = try render(body, key: bodyKey, page: page, environment: environment,
                                      encodingScripts: bodyFormat == .form)
            do {
                bodyBytes = try TextTranscoder.bytes(of: rendered, charset: charset ?? "UTF-8")
            } catch {
                throw RuleError(field: field, dialect: nil, reason: error.description, rule: text)
            }
            if headers.value(for: "Content-Type") == nil {
                let isJSON = rendered.hasPrefix("{") || rendered.hasPrefix("[")
                headers.append(HTTPHeader("Content-Type", isJSON ? "application/json" : "application/x-www-form-urlencoded"))
            }
        }
        return (HTTPRequest(url: absolute, method: method, headers: headers, body: bodyBytes), webView)
    }

    // MARK: - Parsing

    /// Where the options object starts: the first `,` followed (after spaces) by `{`, outside `{{…}}`.
    private static func optionsStart(in text: String) -> (comma: String.Index, brace: String.Index)? {
        var depth = 0
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "{" { depth += 1 }
            if character == "}" { depth = max(0, depth - 1) }
            if character == ",", depth == 0 {
                var next = text.index(after: index)
                while next < text.endIndex, text[next] == " " || text[next] == "\n" || text[next] == "\t" {
                    next = text.index(after: next)
                }
                if next < text.endIndex, text[next] == "{", !text[next...].hasPrefix("{{") {
                    return (index, next)
                }
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static func pieces(_ text: String, field: String, whole: String) throws(RuleError) -> [URLTemplatePiece] {
        var result: [URLTemplatePiece] = []
        var literal = ""
        var index = text.startIndex
        func flush() {
            if !literal.isEmpty { result.append(.literal(literal)) }
            literal = ""
        }
        while index < text.endIndex {
            let rest = text[index...]
            if rest.hasPrefix("{{"), let close = rest.range(of: "}}") {
                flush()
                let inner = String(rest[rest.index(index, offsetBy: 2)..<close.lowerBound]).trimmingASCIIWhitespace()
                if inner == "key" || inner == "searchKey" {
                    result.append(.key)
                } else if let expression = PageExpression(inner) {
                    result.append(.page(expression))
                } else {
                    // In a URL every other {{…}} is JavaScript (Legado's AnalyzeUrl has no rule check here).
                    result.append(.script(ScriptSnippet(code: inner, field: field, placement: .template)))
                }
                index = close.upperBound
                continue
            }
            if rest.hasPrefix("<"), let close = rest.firstIndex(of: ">") {
                let inner = String(rest[rest.index(after: index)..<close])
                if inner.contains(",") && !inner.contains("<") {
                    flush()
                    let choices = try inner.split(separator: ",", omittingEmptySubsequences: false).map { part throws(RuleError) in
                        try pieces(String(part), field: field, whole: whole)
                    }
                    result.append(.byPage(choices))
                    index = text.index(after: close)
                    continue
                }
            }
            literal.append(text[index])
            index = text.index(after: index)
        }
        flush()
        return result
    }

    private func render(_ pieces: [URLTemplatePiece], key: String, page: Int, environment: RuleEnvironment,
                        encodingScripts: Bool = true) throws(RuleError) -> String {
        var result = ""
        for piece in pieces {
            switch piece {
            case .literal(let text): result += text
            case .key: result += key
            case .page(let expression): result += String(expression.value(page: page))
            case .byPage(let choices):
                guard !choices.isEmpty else { continue }
                result += try render(choices[min(max(page, 1), choices.count) - 1], key: key, page: page,
                                     environment: environment, encodingScripts: encodingScripts)
            case .script(let snippet):
                // Scripts see the raw key; what they give is sent in the site's charset, as Legado encodes the
                // query after building the URL.
                let value = try run(snippet, result: .none, environment: environment)
                guard encodingScripts else {
                    result += value
                    continue
                }
                do {
                    result += try Self.percentEncodingNonASCII(value, charset: charset ?? "UTF-8")
                } catch {
                    throw RuleError(field: field, dialect: .javaScript, reason: error.description, rule: text)
                }
            }
        }
        return result
    }

    /// `text` escaped to sit inside a JSON string (`"`, `\` and control characters), as the JSON module
    /// serializes strings, without the quotes around it.
    static func jsonStringContent(_ text: String) -> String {
        String(JSONValue.string(text).serialized().dropFirst().dropLast())
    }

    /// `@js:`/`<js>` parts in order: text replaces the value, a script's result becomes it; the last value is
    /// the template.
    private func runScriptPass(_ parts: [ScriptSplitter.Part], environment: RuleEnvironment) throws(RuleError) -> String {
        var value = text
        for part in parts {
            switch part {
            case .rule(let literal): value = literal
            case .script(let code, let placement):
                value = try run(ScriptSnippet(code: code, field: field, placement: placement), result: .text(value),
                                environment: environment)
            }
        }
        return value.trimmingASCIIWhitespace()
    }

    private func run(_ snippet: ScriptSnippet, result: RuleValue, environment: RuleEnvironment) throws(RuleError) -> String {
        guard let script = environment.script else {
            throw RuleError(field: field, dialect: .javaScript,
                            reason: "this URL needs JavaScript, and no script runtime was given", rule: text)
        }
        do {
            return try script.run(snippet, result: result, in: .text(""), environment: environment)
                .strings.joined(separator: "\n")
        } catch {
            throw RuleError(wrapping: error, field: field, dialect: .javaScript, rule: snippet.code)
        }
    }

    /// `text` with every byte outside printable ASCII (and spaces) percent-encoded in `charset`.
    static func percentEncodingNonASCII(_ text: String, charset: String) throws(CharsetError) -> String {
        guard text.unicodeScalars.contains(where: { $0.value > 0x7E || $0 == " " }) else { return text }
        var result = ""
        var run = ""
        func flush() throws(CharsetError) {
            if !run.isEmpty { result += try URLEncoding.component(run, charset: charset) }
            run = ""
        }
        for scalar in text.unicodeScalars {
            if scalar.value > 0x7E || scalar == " " {
                run.unicodeScalars.append(scalar)
            } else {
                try flush()
                result.unicodeScalars.append(scalar)
            }
        }
        try flush()
        return result
    }
}

/// One piece of a URL template.
indirect enum URLTemplatePiece: Sendable {
    case literal(String)
    case key
    case page(PageExpression)
    case byPage([[URLTemplatePiece]])
    case script(ScriptSnippet)
}
