import BookRuleDocument
import BookRuleJSON
import BookRuleRules

/// A source's login, as Legado's sources write it: `loginUrl` (a URL to post the form to, or JavaScript
/// defining `login()`), `loginUi` (the form: text and password fields, buttons with an action) and
/// `loginCheckJs` (run on every page the source fetches, to notice a lost login and log in again).
public struct LoginRules: Sendable {
    /// What `loginUrl` is.
    public enum Action: Sendable {
        /// A URL (with Legado's `,{options}`): fetched with the form's fields (docs/login.md).
        case url(URLTemplate)
        /// JavaScript (`@js:`, `<js>…</js>` or plain code) defining `login()` and the buttons' functions.
        case script(String)
    }

    /// `loginUrl`, read; nil when absent, blank or an empty `{"url": ""}`.
    public let action: Action?
    /// `loginUi`'s rows, in order.
    public let fields: [LoginField]
    /// `loginCheckJs`; nil when absent or blank.
    public let checkScript: ScriptSnippet?
    /// What could not be used, named by field (`loginUrl`, `loginUi`, `loginCheckJs`).
    public let problems: [SourceProblem]
    /// Helpers the login's scripts name that cannot run here (a browser, a person, a fork's helper): the
    /// scripts still run, and fail naming the helper only if they reach it (a loginUrl script is mostly a
    /// library of button functions, a check calls the browser only on a challenge page).
    public let warnings: [SourceProblem]
    /// Whether the source writes login JavaScript (a `loginUrl` script or a `loginCheckJs`), usable or not.
    public let writesScript: Bool

    /// Whether the source has anything to log in with.
    public var canLogIn: Bool { action != nil }

    /// Whether running the login or its check needs the script runtime.
    var needsScript: Bool {
        if checkScript != nil { return true }
        switch action {
        case .script?: return true
        case .url(let template)?: return template.needsScript
        case nil: return false
        }
    }

    /// The `text` and `password` rows (what the form asks for).
    public var inputs: [LoginField] { fields.filter { $0.kind != .button } }

    /// The fields whose values are secrets: `password` rows, and `text` rows named like one (`密码`, `token`…),
    /// as sources often ask for a password in a text field.
    public var secretFieldNames: Set<String> {
        let hints = ["密码", "密钥", "口令", "令牌", "password", "passwd", "pwd", "token", "secret", "cookie", "key"]
        return Set(inputs.filter { field in
            field.kind == .password || hints.contains { field.name.lowercased().contains($0) }
        }.map(\.name))
    }

    /// The `button` rows with an action.
    public var buttons: [LoginField] { fields.filter { $0.kind == .button && $0.action != nil } }

    /// Reads the login fields of a source object; `prefix` is the `[3].` of a source in an array file.
    init(object: JSONObject, prefix: String) {
        var problems: [SourceProblem] = []
        var warnings: [SourceProblem] = []
        var writesScript = false
        action = Self.action(object["loginUrl"], field: prefix + "loginUrl", problems: &problems, warnings: &warnings,
                             writesScript: &writesScript)
        fields = Self.fields(object["loginUi"], field: prefix + "loginUi", problems: &problems)
        var check: ScriptSnippet?
        if let node = object["loginCheckJs"] {
            if case .string(let text) = node.value {
                let code = BookSource.wholeScript(text) ?? text
                if !code.trimmingASCIIWhitespace().isEmpty {
                    writesScript = true
                    let snippet = ScriptSnippet(code: code, field: prefix + "loginCheckJs", placement: .whole)
                    // A check runs on every page: Java it cannot have would fail every page, so it is not run.
                    let checked = LoginCheck.check(code, field: snippet.field, location: node.location, refusing: [.refused],
                                                   allowing: LoginCheck.requestHelpers)
                    warnings += checked.warnings
                    if let problem = checked.problem { problems.append(problem) } else { check = snippet }
                }
            } else if node.value != .null {
                problems.append(SourceProblem(field: prefix + "loginCheckJs", location: node.location,
                                              reason: "expected a string of JavaScript, found \(node.value.typeName)"))
            }
        }
        checkScript = check
        self.problems = problems
        self.warnings = warnings
        self.writesScript = writesScript
    }

    private static func action(_ node: JSONNode?, field: String, problems: inout [SourceProblem],
                               warnings: inout [SourceProblem], writesScript: inout Bool) -> Action? {
        guard let node else { return nil }
        guard case .string(var text) = node.value else {
            if node.value != .null {
                problems.append(SourceProblem(field: field, location: node.location,
                                              reason: "expected a string (a URL or JavaScript), found \(node.value.typeName)"))
            }
            return nil
        }
        text = text.trimmingASCIIWhitespace()
        // `{"url": "…"}`, as some sources write it: the URL inside (empty or "null" meaning none).
        if text.hasPrefix("{"), let parsed = try? JSONParser.parse(text, lenient: true),
           case .object(let object) = parsed.value {
            guard let url = object["url"]?.value.stringValue?.trimmingASCIIWhitespace(), !url.isEmpty, url != "null" else {
                return nil
            }
            text = url
        }
        guard !text.isEmpty else { return nil }
        if BookSource.wholeScript(text) == nil, looksLikeURL(text) {
            do throws(RuleError) {
                let template = try URLTemplate(text, field: field)
                if let reason = ScriptCheck.problem(in: template.scripts) {
                    throw RuleError(field: field, dialect: .javaScript, reason: reason, rule: text)
                }
                return .url(template)
            } catch {
                problems.append(SourceProblem(field: field, location: node.location, dialect: error.dialect, reason: error.reason))
                return nil
            }
        }
        // Legado evaluates any other loginUrl as the script of login() (BaseSource.getLoginJs).
        writesScript = true
        let code = loginScript(text)
        let checked = LoginCheck.check(code, field: field, location: node.location, refusing: [], allowing: [])
        warnings += checked.warnings
        if let problem = checked.problem {
            problems.append(problem)
            return nil
        }
        return .script(code)
    }

    /// Legado's getLoginJs: `@js:` dropped, `<js>` up to the last `<` kept, anything else as written.
    static func loginScript(_ text: String) -> String {
        let lower = text.lowercased()
        if lower.hasPrefix("@js:") { return String(text.dropFirst(4)) }
        if lower.hasPrefix("<js>") {
            let body = text.dropFirst(4)
            if let close = body.lastIndex(of: "<") { return String(body[..<close]) }
            return String(body)
        }
        return text
    }

    /// One line starting with a scheme or a slash: a URL rather than a script.
    private static func looksLikeURL(_ text: String) -> Bool {
        let firstLine = text.prefix { $0 != "\n" }
        let lower = firstLine.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("/") else { return false }
        // `url,{options}` may span lines; code after a URL may not.
        guard firstLine.count < text.count else { return !lower.hasPrefix("//") }
        let split = URLWithOptions(text)
        return split.options != nil && !split.address.contains { $0.isWhitespace }
    }

    private static func fields(_ node: JSONNode?, field: String, problems: inout [SourceProblem]) -> [LoginField] {
        guard let node else { return [] }
        var array: [JSONNode]
        switch node.value {
        case .array(let items):
            array = items
        case .string(let text):
            let trimmed = text.trimmingASCIIWhitespace()
            if trimmed.isEmpty { return [] }
            // Legado reads loginUi leniently (Gson): unquoted names and single quotes are common.
            guard let parsed = try? JSONParser.parse(trimmed, lenient: true), case .array(let items) = parsed.value else {
                problems.append(SourceProblem(field: field, location: node.location,
                                              reason: "expected a JSON array of {name, type, action} rows"))
                return []
            }
            array = items
        case .null:
            return []
        default:
            problems.append(SourceProblem(field: field, location: node.location,
                                          reason: "expected a JSON array of {name, type, action} rows, found \(node.value.typeName)"))
            return []
        }
        var rows: [LoginField] = []
        for (index, item) in array.enumerated() {
            guard case .object(let row) = item.value, let name = row["name"]?.value.stringValue else {
                problems.append(SourceProblem(field: "\(field)[\(index)]", location: item.location,
                                              reason: "a row needs a name"))
                continue
            }
            let kind = LoginField.Kind(rawValue: row["type"]?.value.stringValue?.lowercased() ?? "text") ?? .text
            let action = row["action"]?.value.stringValue.flatMap { $0.trimmingASCIIWhitespace().isEmpty ? nil : $0 }
            rows.append(LoginField(name: name, kind: kind, action: action))
        }
        return rows
    }
}

/// One row of a source's `loginUi`.
public struct LoginField: Sendable, Equatable {
    /// What the row is.
    public enum Kind: String, Sendable {
        /// A line of text (a user name, a server address).
        case text
        /// A secret: asked with the echo off, never printed.
        case password
        /// A button: its `action` (JavaScript, or a URL to open) runs when chosen.
        case button
    }

    /// `name`: the label, and the key of the value in the login info.
    public let name: String
    /// `type`; an unknown type reads as text, as Legado shows it.
    public let kind: Kind
    /// `action`: a button's JavaScript (with loginUrl's functions in scope) or URL.
    public let action: String?

    /// Creates a row.
    public init(name: String, kind: Kind, action: String? = nil) {
        self.name = name
        self.kind = kind
        self.action = action
    }
}
