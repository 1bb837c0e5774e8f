import BookRuleLocking
import BookRuleRules
import BookRuleScript

/// A `ScriptHost` for tests: answers fetches from a table, records every request and message, and keeps
/// cookies, the cache and the source variable in memory.
final class RecordingScriptHost: ScriptHost {
    struct State {
        var requests: [ScriptRequest] = []
        var messages: [(String, ScriptMessageKind)] = []
        var variable: String?
        var cookies: [String: String] = [:]
        var cache: [String: String] = [:]
    }

    let state = Locked(State())
    let responses: [String: ScriptResponse]
    let clock: ScriptClock
    let sourceKey = "https://source.example"
    let sourceName = "Test source"
    /// Called for every fetch before answering (to re-enter the runtime from a helper).
    let onFetch: (@Sendable (ScriptRequest) throws -> Void)?

    init(responses: [String: ScriptResponse] = [:], clock: ScriptClock = .system,
         onFetch: (@Sendable (ScriptRequest) throws -> Void)? = nil) {
        self.responses = responses
        self.clock = clock
        self.onFetch = onFetch
    }

    var requests: [ScriptRequest] { state.withLock { $0.requests } }
    var messages: [String] { state.withLock { $0.messages.map(\.0) } }

    func fetch(_ request: ScriptRequest) throws -> ScriptResponse {
        state.withLock { $0.requests.append(request) }
        try onFetch?(request)
        guard let response = responses[request.url] else { throw TestFetchError(url: request.url) }
        return response
    }

    func message(_ text: String, kind: ScriptMessageKind) { state.withLock { $0.messages.append((text, kind)) } }
    func sourceVariable() -> String? { state.withLock { $0.variable } }
    func setSourceVariable(_ value: String?) { state.withLock { $0.variable = value } }
    func cookie(for url: String) -> String { state.withLock { $0.cookies[url] ?? "" } }
    func setCookie(_ url: String, _ cookie: String) { state.withLock { $0.cookies[url] = cookie } }
    func removeCookie(_ url: String) { _ = state.withLock { $0.cookies.removeValue(forKey: url) } }
    func cacheGet(_ key: String) -> String? { state.withLock { $0.cache[key] } }
    func cachePut(_ key: String, _ value: String, seconds: Int?) { state.withLock { $0.cache[key] = value } }
    func cacheRemove(_ key: String) { _ = state.withLock { $0.cache.removeValue(forKey: key) } }
}

/// What the test host throws for a URL it has no answer for.
struct TestFetchError: Error, CustomStringConvertible {
    let url: String
    var description: String { "no answer for \(url)" }
}

/// Shorthands for running snippets in tests.
extension ScriptRuntime {
    /// Runs `code` as `@js:` in field `test`, on `context`, and returns the rule value.
    func run(_ code: String, result: RuleValue = .none, context: RuleContext = .text(""),
             bindings: ScriptBindings = ScriptBindings(), variables: RuleVariables = RuleVariables()) throws -> RuleValue {
        let snippet = ScriptSnippet(code: code, field: "test", placement: .atJS)
        let environment = RuleEnvironment(baseURL: bindings.baseURL, variables: variables,
                                          script: ScriptScope(runtime: self, bindings: bindings))
        return try evaluate(snippet, bindings: bindings, result: result, context: context, environment: environment)
    }

    /// Runs `code` and returns its value as one string (texts joined with "\n").
    func text(_ code: String, result: RuleValue = .none, context: RuleContext = .text(""),
              bindings: ScriptBindings = ScriptBindings(), variables: RuleVariables = RuleVariables()) throws -> String {
        try run(code, result: result, context: context, bindings: bindings, variables: variables).strings
            .joined(separator: "\n")
    }
}

extension RuleValue {
    /// The value's case and contents, for comparisons.
    var summary: String {
        switch self {
        case .text(let text): return "text(\(text))"
        case .texts(let texts): return "texts(\(texts.joined(separator: "|")))"
        case .item: return "items(1)"
        case .items(let items): return "items(\(items.count))"
        }
    }
}
