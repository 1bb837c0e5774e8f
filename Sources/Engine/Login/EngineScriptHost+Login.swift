import BookRuleHTTP
import BookRuleScript

// What scripts reach of the source's login: the stored values (`source.getLoginInfo()`, `putLoginHeader`…),
// the loginUrl script for `source.login()`, and the login through a loginUrl written as a URL.
extension EngineScriptHost {
    func loginValue(_ field: ScriptLoginField) -> String? {
        guard let login = login?.login else { return nil }
        switch field {
        case .info: return login.info
        case .header: return login.header
        }
    }

    func setLoginValue(_ field: ScriptLoginField, _ value: String?) {
        guard let login else {
            message("source.\(field == .info ? "putLoginInfo" : "putLoginHeader") is not kept: no login store in this run",
                    kind: .log)
            return
        }
        do {
            try login.update { stored in
                switch field {
                case .info: stored.info = value
                case .header:
                    stored.header = value
                    // Legado's removeLoginHeader forgets the site's cookies too, for good.
                    if value == nil { stored.cookies = [:] }
                }
            }
        } catch {
            message("the login could not be saved: \(error)", kind: .toast)
        }
    }

    func loginScript() -> String? {
        if case .script(let code)? = loginRules.action { return code }
        return nil
    }

    func loginThroughURL() throws {
        guard case .url(let template)? = loginRules.action else {
            throw ScriptHostFailure("the source has no loginUrl")
        }
        let request = try LoginRequest.make(template, rules: loginRules, login: login?.login ?? StoredLogin(),
                                            sourceKey: sourceKey, headers: sourceHeaders, script: nil)
        let response = try send(request, charset: template.charset)
        guard (200..<400).contains(response.statusCode) else {
            throw ScriptHostFailure("the login page answered HTTP \(response.statusCode)")
        }
        try login?.keepCookies()
    }
}
