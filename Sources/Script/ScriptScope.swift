import BookRuleRules

/// A runtime bound to one step's bindings: what the engine puts into `RuleEnvironment.script`, so rules
/// evaluate their JavaScript with the right `key`, `page`, `book`, `chapter` and `baseUrl`.
public struct ScriptScope: ScriptEachEvaluating {
    /// The source's runtime.
    public let runtime: ScriptRuntime
    /// The globals snippets see.
    public let bindings: ScriptBindings

    /// Binds `runtime` to `bindings`.
    public init(runtime: ScriptRuntime, bindings: ScriptBindings) {
        self.runtime = runtime
        self.bindings = bindings
    }

    /// Runs `snippet` (see `ScriptRuntime.evaluate`); `baseUrl` is the environment's when the bindings
    /// leave it empty.
    public func run(_ snippet: ScriptSnippet, result: RuleValue, in context: RuleContext,
                    environment: RuleEnvironment) throws -> RuleValue {
        var bindings = bindings
        if bindings.baseURL.isEmpty { bindings.baseURL = environment.baseURL }
        return try runtime.evaluate(snippet, bindings: bindings, result: result, context: context, environment: environment)
    }

    /// See `ScriptRuntime.evaluatesEach`.
    public func runsEach(_ snippet: ScriptSnippet) -> Bool {
        runtime.evaluatesEach(snippet)
    }

    /// Runs `snippet` for each of `results` (see `ScriptRuntime.evaluateEach`), with the bindings `run`
    /// would give each of them.
    public func runEach(_ snippet: ScriptSnippet, results: [String],
                        environment: RuleEnvironment) -> [Result<RuleValue, any Error>]? {
        var bindings = bindings
        if bindings.baseURL.isEmpty { bindings.baseURL = environment.baseURL }
        return runtime.evaluateEach(snippet, bindings: bindings, results: results, environment: environment)?
            .map { $0.mapError { $0 } }
    }
}
