import BookRuleCrypto
import BookRuleDocument
import BookRuleRules
import Foundation

/// A helper that failed, with a sentence the script sees as `e.message`.
struct HelperFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

extension ScriptWorker {
    /// The native functions the prelude builds the `java`, `source`, `cookie`, `cache` and Jsoup objects
    /// on. Arguments arrive as the prelude passes them (already strings where a string is meant).
    func nativeFunctions() -> [(name: String, body: NativeBody)] {
        [
            // Rule engine
            ("getString", { [unowned self] in try getStrings($0, kind: .string).joined(separator: "\n").scriptString }),
            ("getStringList", { [unowned self] in .array(try getStrings($0, kind: .string).map(ScriptValue.string)) }),
            ("getElements", { [unowned self] in try getElements($0) }),
            ("setContent", { [unowned self] in setContent($0) }),
            ("setBaseUrl", { [unowned self] arguments in
                // jsLib runs before any rule: there is no rule's base URL to set then.
                guard !frames.isEmpty else { throw HelperFailure("java.setBaseUrl needs a rule being evaluated; it cannot run in jsLib") }
                frames[frames.count - 1].environment.baseURL = arguments.first?.text ?? ""
                return .undefined
            }),
            ("baseUrl", { [unowned self] _ in .string(frames.last?.environment.baseURL ?? "") }),
            ("put", { [unowned self] arguments in
                frames.last?.environment.variables[Self.text(arguments, 0)] = Self.text(arguments, 1)
                return .undefined
            }),
            ("get", { [unowned self] arguments in .string(frames.last?.environment.variables[Self.text(arguments, 0)] ?? "") }),
            // Host
            ("fetch", { [unowned self] in try fetch($0) }),
            ("fetchBytes", { [unowned self] arguments in
                let response = try host.fetch(.explicit(url: Self.text(arguments, 0), method: "GET", headers: [:], body: nil))
                guard (200..<300).contains(response.statusCode) else {
                    throw HelperFailure("\(Self.text(arguments, 0)) answered HTTP \(response.statusCode)")
                }
                return .byteArray(response.bodyBytes ?? Array(response.body.utf8))
            }),
            ("webView", { [unowned self] arguments in
                .string(try host.webView(ScriptWebView(
                    html: arguments.first?.optionalText, url: arguments.count > 1 ? arguments[1].optionalText : nil,
                    script: arguments.count > 2 ? arguments[2].optionalText : nil,
                    sourceRegex: arguments.count > 3 ? arguments[3].optionalText : nil,
                    overrideURLRegex: arguments.count > 4 ? arguments[4].optionalText : nil)))
            }),
            ("verify", { [unowned self] arguments in
                var refetch = true
                if arguments.count > 3, case .bool(false) = arguments[3] { refetch = false }
                let response = try host.verify(ScriptVerification(
                    helper: Self.text(arguments, 0), url: Self.text(arguments, 1), title: Self.text(arguments, 2),
                    refetchAfterSuccess: refetch))
                return Self.responseObject(response)
            }),
            ("message", { [unowned self] arguments in
                host.message(Self.text(arguments, 0), kind: ScriptMessageKind(rawValue: Self.text(arguments, 1)) ?? .log)
                return .undefined
            }),
            ("sourceKey", { [unowned self] _ in .string(host.sourceKey) }),
            ("sourceName", { [unowned self] _ in .string(host.sourceName) }),
            ("sourceVariable", { [unowned self] _ in host.sourceVariable().map(ScriptValue.string) ?? .null }),
            ("setSourceVariable", { [unowned self] arguments in
                host.setSourceVariable(arguments.first?.optionalText)
                return .undefined
            }),
            ("cookie", { [unowned self] arguments in .string(host.cookie(for: Self.text(arguments, 0))) }),
            ("setCookie", { [unowned self] arguments in
                host.setCookie(Self.text(arguments, 0), Self.text(arguments, 1))
                return .undefined
            }),
            ("removeCookie", { [unowned self] arguments in
                host.removeCookie(Self.text(arguments, 0))
                return .undefined
            }),
            ("loginValue", { [unowned self] arguments in
                ScriptLoginField(rawValue: Self.text(arguments, 0)).flatMap { host.loginValue($0) }.map(ScriptValue.string) ?? .null
            }),
            ("setLoginValue", { [unowned self] arguments in
                if let field = ScriptLoginField(rawValue: Self.text(arguments, 0)) {
                    host.setLoginValue(field, arguments.count > 1 ? arguments[1].optionalText : nil)
                }
                return .undefined
            }),
            ("loginScript", { [unowned self] _ in host.loginScript().map(ScriptValue.string) ?? .null }),
            ("loginThroughURL", { [unowned self] _ in
                do { try host.loginThroughURL() } catch { throw HelperFailure("source.login(): \(error)") }
                return .undefined
            }),
            ("cacheGet", { [unowned self] arguments in host.cacheGet(Self.text(arguments, 0)).map(ScriptValue.string) ?? .null }),
            ("cachePut", { [unowned self] arguments in
                let seconds = arguments.count > 2 ? arguments[2].text.flatMap { Int($0) } : nil
                host.cachePut(Self.text(arguments, 0), Self.text(arguments, 1), seconds: seconds)
                return .undefined
            }),
            ("cacheRemove", { [unowned self] arguments in
                host.cacheRemove(Self.text(arguments, 0))
                return .undefined
            }),
            // Encodings and crypto
            ("encode", { arguments in try Self.encode(arguments) }),
            ("decode", { arguments in try Self.decode(arguments) }),
            ("base64Decode", { arguments in ScriptValue.byteArray(LenientBase64.decode(Self.text(arguments, 0))) }),
            ("base64Encode", { arguments in .string(Data(try Self.bytes(arguments, 0)).base64EncodedString()) }),
            ("urlEncode", { arguments in
                .string((try? URLEncoding.form(Self.text(arguments, 0), charset: Self.text(arguments, 1))) ?? "")
            }),
            ("digest", { arguments in try Self.digest(arguments) }),
            ("hmac", { arguments in try Self.hmac(arguments) }),
            ("cipher", { arguments in try Self.cipher(arguments) }),
            ("chinese", { arguments in try Self.chinese(arguments) }),
            ("htmlFormat", { arguments in .string(HTMLTextFormatter.text(fromMarkup: Self.text(arguments, 0))) }),
            ("resolveURL", { arguments in
                .string(URLReference.resolve(Self.text(arguments, 0), against: Self.text(arguments, 1)) ?? Self.text(arguments, 0))
            }),
            // The Jsoup object model
            ("parse", { arguments in try Self.parse(arguments) }),
            ("select", { [unowned self] in try select($0) }),
            ("text", { arguments in .string(HTMLTextFormatter.inlineText(of: try Self.node(arguments).node)) }),
            ("ownText", { arguments in .string(Self.ownText(of: try Self.node(arguments).node)) }),
            ("html", { arguments in .string(try Self.node(arguments).node.innerHTML) }),
            ("outerHtml", { arguments in .string(try Self.node(arguments).node.outerHTML) }),
            ("attr", { arguments in try Self.attribute(arguments) }),
            ("hasAttr", { arguments in
                let node = try Self.node(arguments).node
                let name = Self.text(arguments, 1)
                return .bool(node.attribute(name.lowercased()) != nil || node.attribute(name) != nil)
            }),
            ("tagName", { arguments in .string(try Self.node(arguments).node.name) }),
            ("isDocument", { arguments in .bool(try Self.node(arguments).node.kind == .document) }),
            ("children", { arguments in try Self.children(arguments) }),
            ("parent", { arguments in try Self.parent(arguments) }),
            ("remove", { arguments in try Self.remove(arguments) }),
        ]
    }

    // MARK: - Arguments

    static func text(_ arguments: [ScriptValue], _ index: Int) -> String {
        index < arguments.count ? arguments[index].optionalText ?? "" : ""
    }

    static func bytes(_ arguments: [ScriptValue], _ index: Int) throws -> [UInt8] {
        guard index < arguments.count else { return [] }
        if case .null = arguments[index] { return [] }
        guard let bytes = arguments[index].bytes else { throw HelperFailure("expected a string or a byte array") }
        return bytes
    }

    static func node(_ arguments: [ScriptValue]) throws -> ScriptNode {
        guard case .node(let node)? = arguments.first else { throw HelperFailure("not an element") }
        return node
    }

    // MARK: - Rule engine

    private func getStrings(_ arguments: [ScriptValue], kind: RuleKind) throws -> [String] {
        guard let frame = frames.last else { throw HelperFailure("no rule is being evaluated") }
        let rule = try rule(Self.text(arguments, 0), kind: kind)
        let content = arguments.count > 1 && arguments[1].optionalText != nil ? context(of: arguments[1]).0 : frame.content
        let values = try rule.strings(in: content, environment: frame.environment)
        guard arguments.count > 2, case .bool(true) = arguments[2] else { return values }
        return values.map { URLReference.resolve($0, against: frame.environment.baseURL) ?? $0 }
    }

    private func getElements(_ arguments: [ScriptValue]) throws -> ScriptValue {
        guard let frame = frames.last else { throw HelperFailure("no rule is being evaluated") }
        let rule = try rule(Self.text(arguments, 0), kind: .list)
        var content = frame.content
        var tree = frame.contentTree
        if arguments.count > 1, arguments[1].optionalText != nil { (content, tree) = context(of: arguments[1]) }
        let items = try rule.elements(in: content, environment: frame.environment)
        return .array(items.map { item in
            switch item {
            case .node(let node): return .node(ScriptNode(node, tree: tree?.document === node.document ? tree : nil))
            case .json(let json): return scriptValue(of: json)
            case .text(let text): return .string(text)
            case .match(let match): return .array(match.groups.map { $0.map(ScriptValue.string) ?? .null })
            }
        })
    }

    private func setContent(_ arguments: [ScriptValue]) -> ScriptValue {
        guard !frames.isEmpty else { return .undefined }
        let (content, tree) = context(of: arguments.first ?? .null)
        frames[frames.count - 1].content = content
        frames[frames.count - 1].contentTree = tree
        if arguments.count > 1, let url = arguments[1].optionalText { frames[frames.count - 1].environment.baseURL = url }
        return .undefined
    }

    private func select(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let node = try Self.node(arguments)
        let css = Self.text(arguments, 1)
        let rule = try rule("@css:" + css, kind: .list)
        let environment = RuleEnvironment(baseURL: node.node.document.baseURL)
        return .array(try rule.elements(in: .node(node.node), environment: environment).compactMap { item in
            guard case .node(let found) = item else { return nil }
            return .node(ScriptNode(found, tree: node.tree))
        })
    }

    // MARK: - Network

    /// `fetch(kind, url, headers, body)`: kind "spec" (a Legado URL string) or an HTTP method.
    private func fetch(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let kind = Self.text(arguments, 0)
        let url = Self.text(arguments, 1)
        let request: ScriptRequest
        if kind == "spec" {
            request = .spec(url)
        } else {
            var headers: [String: String] = [:]
            if arguments.count > 2, case .object(let members) = arguments[2] {
                for member in members { headers[member.key] = member.value.optionalText ?? "" }
            }
            request = .explicit(url: url, method: kind, headers: headers,
                                body: arguments.count > 3 ? arguments[3].optionalText : nil)
        }
        return Self.responseObject(try host.fetch(request))
    }

    /// `response` as the prelude's `strResponse` and `jsoupResponse` read it.
    private static func responseObject(_ response: ScriptResponse) -> ScriptValue {
        .object([
            ("url", .string(response.url)), ("code", .number(Double(response.statusCode))),
            ("headers", .object(response.headers.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
            ("body", .string(response.body)),
            ("cookies", .object(response.cookies.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
        ])
    }

    // MARK: - Encodings and crypto

    private static func encode(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let charset = text(arguments, 1)
        if charset.isEmpty || charset.uppercased() == "UTF-8" || charset.uppercased() == "UTF8" {
            return ScriptValue.byteArray(Array(text(arguments, 0).utf8))
        }
        guard TextTranscoder.isSupported(charset) else { throw HelperFailure("unknown charset \(charset)") }
        return ScriptValue.byteArray(try TextTranscoder.bytes(of: text(arguments, 0), charset: charset))
    }

    private static func decode(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let bytes = try bytes(arguments, 0)
        let charset = text(arguments, 1)
        if charset.isEmpty || charset.uppercased() == "UTF-8" || charset.uppercased() == "UTF8" {
            return .string(String(decoding: bytes, as: UTF8.self))
        }
        guard TextTranscoder.isSupported(charset) else { throw HelperFailure("unknown charset \(charset)") }
        return .string(String(decoding: try TextTranscoder.utf8Bytes(from: bytes, charset: charset), as: UTF8.self))
    }

    private static func digest(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let name = text(arguments, 0)
        guard let algorithm = MessageDigest.Algorithm(javaName: name) else {
            throw HelperFailure("unknown digest algorithm \(name) (MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512)")
        }
        guard algorithm.isAvailable else { throw HelperFailure(Self.unavailable(algorithm)) }
        return ScriptValue.byteArray(MessageDigest.hash(try bytes(arguments, 1), algorithm: algorithm))
    }

    private static func hmac(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let name = text(arguments, 0)
        guard let algorithm = MessageDigest.Algorithm(javaName: name.uppercased().replacingOccurrences(of: "HMAC", with: "")) else {
            throw HelperFailure("unknown HMAC algorithm \(name) (HmacMD5, HmacSHA1, HmacSHA256, …)")
        }
        guard algorithm.isAvailable else { throw HelperFailure(Self.unavailable(algorithm)) }
        return ScriptValue.byteArray(HMAC.authenticationCode(key: try bytes(arguments, 1), message: try bytes(arguments, 2),
                                                             algorithm: algorithm))
    }

    private static func unavailable(_ algorithm: MessageDigest.Algorithm) -> String {
        "this machine's libcrypto refuses \(algorithm.rawValue) (a FIPS-only OpenSSL configuration?)"
    }

    /// `cipher(transformation, key, iv, encrypting, data)`.
    private static func cipher(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let iv = try bytes(arguments, 2)
        let cipher = try SymmetricCipher(transformation: text(arguments, 0), key: try bytes(arguments, 1),
                                         iv: iv.isEmpty ? nil : iv)
        let data = try bytes(arguments, 4)
        guard arguments.count > 3, case .bool(let encrypting) = arguments[3] else { throw HelperFailure("bad cipher call") }
        return ScriptValue.byteArray(encrypting ? try cipher.encrypt(data) : try cipher.decrypt(data))
    }

    private static func chinese(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let configuration: ChineseConverter.Configuration =
            text(arguments, 1) == "s2t" ? .simplifiedToTraditional : .traditionalToSimplified
        return .string(try ChineseConverter.shared(configuration).convert(text(arguments, 0)))
    }

    // MARK: - Jsoup

    private static func parse(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let html = text(arguments, 0)
        let url = text(arguments, 1)
        let decision = CharsetDecision(charset: "UTF-8", reason: .validUTF8)
        let document = try HTMLDocument(bytes: Array(html.utf8), url: url, charset: decision)
        let tree = ScriptTree(document)
        return .node(ScriptNode(document.root, tree: tree))
    }

    private static func attribute(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let node = try node(arguments).node
        var name = text(arguments, 1)
        var absolute = false
        if name.lowercased().hasPrefix("abs:") {
            absolute = true
            name.removeFirst(4)
        }
        guard let value = node.attribute(name.lowercased()) ?? node.attribute(name) else { return .string("") }
        guard absolute else { return .string(value) }
        return .string(URLReference.resolve(value, against: node.document.baseURL) ?? "")
    }

    private static func children(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let node = try node(arguments)
        return .array(node.node.elementChildren.map { .node(node.related($0)) })
    }

    private static func parent(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let node = try node(arguments)
        guard let parent = node.node.parentNode else { return .null }
        return .node(node.related(parent))
    }

    private static func remove(_ arguments: [ScriptValue]) throws -> ScriptValue {
        let node = try node(arguments)
        guard let tree = node.tree else {
            throw HelperFailure("remove() changes only documents made with org.jsoup.Jsoup.parse; the page a rule "
                + "runs on is shared and stays as fetched (parse its html() first)")
        }
        tree.detach(node.node)
        return .undefined
    }

    /// jsoup's `ownText()`: the element's own text nodes joined, a child `<br>` as a space, whitespace
    /// collapsed and trimmed.
    static func ownText(of node: HTMLNode) -> String {
        HTMLTextFormatter.titleLine(node.ownTextWithBreaksAsSpaces)
    }
}

extension String {
    /// The string as a script value.
    var scriptString: ScriptValue { .string(self) }
}
