import BookRuleHTTP
import BookRuleJSON
import BookRuleRules
import BookRuleScript

/// What a login check found (`bookrule login --check`).
public struct LoginCheckReport: Sendable {
    /// Whether a login (form values, headers or cookies) is stored for the source.
    public var stored: Bool
    /// The page checked: the source's own URL.
    public var url: String
    /// The status of the page after the check.
    public var status: Int?
    /// Whether the source has a `loginCheckJs` that ran on the page.
    public var checked: Bool
    /// What the login's scripts said (`java.log`, `java.toast`).
    public var messages: [String]
}

extension SourceEngine {
    /// Logs in as Legado's login form does: `values` (the `loginUi` text and password fields) are stored as
    /// the login info (none: the stored info is removed), then `loginUrl` runs: its script's `login()`, or a
    /// fetch of its URL with the values. The cookies the login leaves are stored with it.
    /// - Returns: what the login's scripts said.
    public func logIn(values: [(name: String, value: String)]) async throws -> [String] {
        guard let action = source.login.action else { throw LoginError.nothingToLogIn(source: source.name) }
        guard let login else { throw LoginError.noStore }
        let info = values.isEmpty ? nil : Self.jsonObject(values)
        try login.update { $0.info = info }
        return try await offPoolForScripts {
            switch action {
            case .script:
                try runLoginScript("source.login()", result: nil)
            case .url(let template):
                let bindings = ScriptBindings(baseURL: source.url)
                let request: HTTPRequest
                do {
                    request = try LoginRequest.make(template, rules: source.login, login: login.login, sourceKey: source.url,
                                                    headers: try requestHeaders(bindings), script: try scripts?.scope(bindings))
                } catch let error as RuleError {
                    throw EngineError.rule(url: source.url, error: error)
                }
                let response: HTTPResponse
                do {
                    response = try await transport.send(request)
                } catch {
                    throw EngineError.transport(url: request.url, error: error)
                }
                guard (200..<400).contains(response.status) else { throw LoginError.refused(url: response.url, status: response.status) }
            }
            try login.keepCookies()
            return scripts?.host.drainMessages() ?? []
        }
    }

    /// Runs the action of the `loginUi` button named `name` (its JavaScript with `loginUrl`'s functions in
    /// scope and `result` the form's `values`, as Legado's login dialog runs it).
    /// - Returns: what its scripts said.
    public func runLoginButton(_ name: String, values: [(name: String, value: String)]) async throws -> [String] {
        let buttons = source.login.buttons
        guard let button = buttons.first(where: { $0.name == name || $0.name.trimmingASCIIWhitespace() == name }),
              let action = button.action else {
            throw LoginError.unknownButton(name: name, buttons: buttons.map { $0.name.trimmingASCIIWhitespace() })
        }
        let trimmed = action.trimmingASCIIWhitespace()
        if trimmed.lowercased().hasPrefix("http://") || trimmed.lowercased().hasPrefix("https://") {
            throw LoginError.opensPage(button: name, url: trimmed)
        }
        var script = ""
        if case .script(let code)? = source.login.action { script = code }
        return try await offPoolForScripts {
            try runLoginScript(script + "\n" + action, result: Self.jsonObject(values))
            try login?.keepCookies()
            return scripts?.host.drainMessages() ?? []
        }
    }

    /// Fetches the source's own page, runs `loginCheckJs` on it (when the source has one), and says whether a
    /// login is stored.
    public func checkLogin() async throws -> LoginCheckReport {
        let stored = login.map { !$0.login.isEmpty } ?? false
        var report = LoginCheckReport(stored: stored, url: source.url, status: nil,
                                      checked: source.login.checkScript != nil, messages: [])
        return try await offPoolForScripts {
            let request = HTTPRequest(url: source.url, headers: try requestHeaders(ScriptBindings(baseURL: source.url)))
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                throw EngineError.transport(url: request.url, error: error)
            }
            report.status = try await checkedLogin(response, for: request).status
            report.messages = scripts?.host.drainMessages() ?? []
            return report
        }
    }

    /// Runs `code` in the source's runtime, `result` (JSON object text) given as a map with Java's `get`.
    private func runLoginScript(_ code: String, result: String?) throws {
        let field = "loginUrl"
        guard let scripts else { throw LoginError.nothingToLogIn(source: source.name) }
        var prologue = ""
        if let result {
            prologue = "var result = JSON.parse(\((try? JSONWriter.string(result)) ?? "'{}'"));\n"
                + "Object.defineProperty(result, 'get', { value: function (k) { const v = this[String(k)]; return v === undefined ? null : v; } });\n"
        }
        let snippet = ScriptSnippet(code: prologue + code, field: field, placement: .whole)
        let scope = try scripts.scope(ScriptBindings(baseURL: source.url))
        do {
            _ = try scope.run(snippet, result: .none, in: .text(""), environment: RuleEnvironment(baseURL: source.url, script: scope))
        } catch {
            throw EngineError.rule(url: source.url, error: RuleError(field: field, dialect: .javaScript, reason: "\(error)", rule: ""))
        }
    }

    /// `fields` as a JSON object's text, in order.
    static func jsonObject(_ fields: [(name: String, value: String)]) -> String {
        let members = fields.map { field in
            ((try? JSONWriter.string(field.name)) ?? "\"\"") + ":" + ((try? JSONWriter.string(field.value)) ?? "\"\"")
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
