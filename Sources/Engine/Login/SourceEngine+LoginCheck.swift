import BookRuleHTTP
import BookRuleRules
import BookRuleScript

extension SourceEngine {
    /// `response` after the source's `loginCheckJs` (Legado's WebBook runs it on the answer of every step's
    /// page): the script sees it as `result` and may log in again and fetch again; what it gives is what the
    /// step reads. A source without the check gets `response` back.
    func checkedLogin(_ response: HTTPResponse, for request: HTTPRequest) async throws -> HTTPResponse {
        guard let check = source.login.checkScript, let scripts else { return response }
        let fail = { (reason: String) in
            EngineError.rule(url: request.url, error: RuleError(field: check.field, dialect: .javaScript, reason: reason, rule: check.code))
        }
        let answer = LoginCheck.answer(EngineScriptHost.scriptResponse(response, charset: nil))
        let scope = try scripts.scope(ScriptBindings(baseURL: request.url))
        let text: String
        do {
            text = try scope.run(LoginCheck.snippet(check, request: request), result: .text(answer), in: .text(""),
                                 environment: RuleEnvironment(baseURL: request.url, script: scope)).strings.joined()
        } catch {
            throw fail("\(error)")
        }
        do {
            return try LoginCheck.response(from: text, original: response) ?? response
        } catch {
            throw fail(error.description)
        }
    }
}
