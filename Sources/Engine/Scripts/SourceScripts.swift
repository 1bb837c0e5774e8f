import BookRuleLocking
import BookRuleHTTP
import BookRuleJSON
import BookRuleRules
import BookRuleScript

/// One source's JavaScript: its runtime (JavaScriptCore, `jsLib` loaded once, a thread of its own), the host
/// that gives scripts the engine's transport, cookies and cache, and the headers its `header` script computes.
final class SourceScripts: Sendable {
    private let runtime: Result<ScriptRuntime, ScriptError>
    let host: EngineScriptHost
    private let source: BookSource
    private let scriptHeaders = Locked<[HTTPHeader]?>(nil)

    init(source: BookSource, connection: SourceTransport, options: EngineOptions) {
        self.source = source
        host = EngineScriptHost(source: source, connection: connection, options: options)
        do {
            runtime = .success(try ScriptRuntime(jsLib: source.jsLib, limits: options.scriptLimits, host: host))
        } catch {
            runtime = .failure(error)
        }
    }

    /// Where a step of the source runs: on its runtime's thread, so its rules' JavaScript runs without a
    /// hand-over per evaluation; nil when the runtime did not start.
    var stepExecutor: (any TaskExecutor)? {
        guard case .success(let runtime) = runtime else { return nil }
        return runtime.stepExecutor
    }

    /// What a rule's `RuleEnvironment.script` holds for a step with these bindings.
    func scope(_ bindings: ScriptBindings) throws(EngineError) -> ScriptScope {
        switch runtime {
        case .success(let runtime): return ScriptScope(runtime: runtime, bindings: bindings)
        case .failure(let error):
            throw EngineError.rule(url: source.url, error: RuleError(wrapping: error, field: error.field.isEmpty ? "scripts" : error.field,
                                                                      dialect: .javaScript, rule: ""))
        }
    }

    /// The source's headers: its `header` script run once (Legado runs it for every request; its result
    /// rarely changes within a run), merged over the written ones.
    func headers(bindings: ScriptBindings) throws(EngineError) -> [HTTPHeader] {
        guard let snippet = source.headerScript else { return source.headers }
        if let cached = scriptHeaders.withLock({ $0 }) { return cached }
        let scope = try scope(bindings)
        let environment = RuleEnvironment(baseURL: source.url, script: scope)
        let url = source.url
        let fail = { (reason: String) in
            EngineError.rule(url: url, error: RuleError(field: snippet.field, dialect: .javaScript, reason: reason,
                                                               rule: snippet.code))
        }
        let text: String
        do {
            text = try scope.run(snippet, result: .none, in: .text(""), environment: environment).strings.joined()
        } catch {
            throw fail("\(error)")
        }
        var headers = source.headers
        do {
            let node = try JSONParser.parse(text, lenient: true)
            for header in try BookSource.headers(from: node) { headers.set(header.name, header.value) }
        } catch {
            throw fail("the header script must give a JSON object of header names and values; it gave \"\(text.prefix(80))\"")
        }
        scriptHeaders.withLock { $0 = headers }
        return headers
    }
}
