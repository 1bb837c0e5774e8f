import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// The request a `loginUrl` written as a URL makes: the template as written (its options' method, body and
/// headers; its scripts reach the form's values through `source.getLoginInfoMap()`), and when it has no body
/// of its own and the form has values, a POST of them as a form (`name=value&…`, UTF-8, in `loginUi` order).
enum LoginRequest {
    static func make(_ template: URLTemplate, rules: LoginRules, login: StoredLogin, sourceKey: String,
                     headers: [HTTPHeader], script: (any ScriptEvaluating)?) throws(RuleError) -> HTTPRequest {
        var request = try template.request(baseURL: sourceKey, sourceHeaders: headers, script: script)
        let values = login.infoFields
        guard template.body == nil, !values.isEmpty else { return request }
        let order = rules.inputs.map(\.name)
        let sorted = values.sorted { (order.firstIndex(of: $0.name) ?? .max) < (order.firstIndex(of: $1.name) ?? .max) }
        request.method = "POST"
        request.body = Array(sorted.map { URLEncoding.form($0.name) + "=" + URLEncoding.form($0.value) }.joined(separator: "&").utf8)
        if request.headers.value(for: "Content-Type") == nil {
            request.headers.append(HTTPHeader("Content-Type", "application/x-www-form-urlencoded"))
        }
        return request
    }

}
