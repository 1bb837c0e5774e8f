import BookRuleHTTP
import BookRuleJSON
import BookRuleRules
import BookRuleScript

/// `loginCheckJs` as Legado runs it on a page's answer: `result` is the response (`body()`, `code()`,
/// `url()`, `headers()`, `header(name)`), the script may log in again (`source.login()`), fetch again
/// (`java.getStrResponse()` after `java.initUrl()`, or `java.connect(url)`), and its value is the response
/// the step goes on with.
enum LoginCheck {
    /// The `java` members the check has on top of the usual ones: the request being checked, as Legado's URL
    /// builder gives them.
    static let requestHelpers: Set<String> = ["initUrl", "getStrResponse", "getResponse", "ruleUrl", "url", "key"]

    /// A login script checked at load: a syntax error, or a helper of a kind in `refusing`, is the problem
    /// that stops it; other helpers it names that cannot run here (except those in `allowing`, which the check
    /// provides) are warnings.
    static func check(_ code: String, field: String, location: SourceLocation?, refusing: Set<ScriptHelperProblem.Kind>,
                      allowing: Set<String>) -> (problem: SourceProblem?, warnings: [SourceProblem]) {
        if let error = ScriptRuntime.checkSyntax(code) {
            let column = error.column.map { ", column \($0)" } ?? ""
            return (SourceProblem(field: field, location: location, dialect: .javaScript,
                                  reason: "JavaScript syntax error at line \(error.line)\(column): \(error.message)"), [])
        }
        let helpers = ScriptRuntime.unsupportedHelpers(in: code).filter { !allowing.contains(String($0.name.dropFirst("java.".count))) }
        let problem = helpers.first { refusing.contains($0.kind) }.map {
            SourceProblem(field: field, location: location, dialect: .javaScript, reason: "\($0.name): \($0.reason)")
        }
        let warnings = helpers.filter { !refusing.contains($0.kind) }.map {
            SourceProblem(field: field, location: location, dialect: .javaScript,
                          reason: "\($0.name): \($0.reason); the script runs, and fails only if it calls it")
        }
        return (problem, warnings)
    }

    /// The snippet that runs `check` on a response given as `result` (its JSON text) for `request`: the
    /// response object and the request helpers made, the check's code evaluated as a direct `eval` (so its
    /// completion value counts and its variables stay its own), and the response it gives written back as
    /// JSON text (`{"url", "code", "headers", "body"}`), or `{"kept": true}` when it gives back the
    /// response it was given (or nothing), so the page keeps its bytes and charset.
    static func snippet(_ check: ScriptSnippet, request: HTTPRequest) -> ScriptSnippet {
        let code = (try? JSONWriter.string(check.code)) ?? "''"
        let url = (try? JSONWriter.string(request.url)) ?? "''"
        var options: [String: String] = ["method": request.method]
        if let body = request.body { options["body"] = String(decoding: body, as: UTF8.self) }
        let spec = (try? JSONWriter.string(request.url + "," + ((try? JSONWriter.string(options)) ?? "{}"))) ?? url
        let wrapper = """
        (function (outerJava, answer) {
            function response(r) {
                return {
                    body() { return r.body; }, code() { return r.code; }, url() { return r.url; },
                    headers() { return r.headers; }, message() { return ''; }, raw() { return this; },
                    header(name) {
                        const wanted = String(name).toLowerCase();
                        for (const k of Object.keys(r.headers)) if (k.toLowerCase() === wanted) return r.headers[k];
                        return null;
                    },
                    isSuccessful() { return r.code >= 200 && r.code < 300; }, toString() { return r.body; }
                };
            }
            const java = Object.create(outerJava);
            java.ruleUrl = \(url);
            java.url = \(url);
            java.key = typeof key === 'undefined' ? null : key;
            java.initUrl = function () { return \(url); };
            java.getStrResponse = function () { return outerJava.connect(\(spec)); };
            java.getResponse = java.getStrResponse;
            const given = response(JSON.parse(answer));
            const value = (function (java, result) { return eval(\(code)); })(java, given);
            if (value === undefined || value === null || value === given) return JSON.stringify({ kept: true });
            if (typeof value === 'object' && typeof value.body === 'function') {
                return JSON.stringify({ url: String(typeof value.url === 'function' ? value.url() : \(url)),
                    code: Number(typeof value.code === 'function' ? value.code() : 200),
                    headers: typeof value.headers === 'function' ? value.headers() : {}, body: String(value.body()) });
            }
            throw new Error('loginCheckJs must give a response (result, or java.connect(url)); it gave ' + typeof value);
        })(java, result)
        """
        return ScriptSnippet(code: wrapper, field: check.field, placement: .whole)
    }

    /// What a check gave, read from the wrapper's JSON: nil when it kept the response it was given.
    static func response(from text: String, original: HTTPResponse) throws(LoginCheckError) -> HTTPResponse? {
        guard let node = try? JSONParser.parse(text), case .object(let object) = node.value else {
            throw LoginCheckError(reason: "it gave no response")
        }
        if object["kept"] != nil { return nil }
        let url = object["url"]?.value.stringValue ?? original.url
        let status = object["code"]?.value.intValue ?? 200
        let body = object["body"]?.value.stringValue ?? ""
        var headers: [HTTPHeader] = []
        if case .object(let fields)? = object["headers"]?.value {
            for member in fields.members {
                if let value = member.value.value.stringValue { headers.append(HTTPHeader(member.key, value)) }
            }
        }
        // The body is text now: say so, so the page is read as UTF-8 whatever the site's charset was.
        headers.removeAll { $0.name.lowercased() == "content-type" || $0.name.lowercased() == "content-length" }
        headers.append(HTTPHeader("Content-Type", "text/html; charset=utf-8"))
        return HTTPResponse(url: url.isEmpty ? original.url : url, status: status, headers: headers, body: Array(body.utf8))
    }

    /// The answer as the check's `result` reads it, as JSON text.
    static func answer(_ response: ScriptResponse) -> String {
        struct Answer: Encodable {
            let url: String
            let code: Int
            let headers: [String: String]
            let body: String
        }
        let answer = Answer(url: response.url, code: response.statusCode, headers: response.headers, body: response.body)
        return (try? JSONWriter.string(answer)) ?? "{}"
    }
}

/// Why a `loginCheckJs` evaluation failed.
struct LoginCheckError: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
}
