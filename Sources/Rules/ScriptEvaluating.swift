/// Runs the JavaScript parts of rules. The rule language only knows where JavaScript appears and what it is
/// given; the engine that evaluates it (JavaScriptCore, sandboxed, with the source's `jsLib` and helpers) lives
/// in a later layer and is handed to rules through `RuleEnvironment.script`.
public protocol ScriptEvaluating: Sendable {
    /// Runs `snippet` with Legado's `result` bound to `result`, `java.getString(…)` and friends reading
    /// `context` (the page or list element the rule runs in), and `@put`/`@get` variables in `environment`.
    ///
    /// Called synchronously, from whatever thread evaluates the rule; a snippet that fetches (`java.ajax`)
    /// blocks that thread until the answer arrives, so callers evaluate such rules off the cooperative pool.
    func run(_ snippet: ScriptSnippet, result: RuleValue, in context: RuleContext,
             environment: RuleEnvironment) throws -> RuleValue
}

/// A `ScriptEvaluating` that can also run one snippet for many list elements in one go: a field whose rule
/// ends in JavaScript, read for thousands of TOC entries (`Rule.textsOfEach`).
public protocol ScriptEachEvaluating: ScriptEvaluating {
    /// Whether `runEach` can run `snippet` with the values `run` would give one element at a time: when
    /// the snippet's value depends on its `result` and the step's bindings alone (it reaches no helper, no
    /// global, nothing `java.getString` would read in the element).
    func runsEach(_ snippet: ScriptSnippet) -> Bool

    /// Runs `snippet` with `result` each of `results` (as `.text`) in turn, and gives what `run` would have
    /// given or thrown for each; nil when `runsEach(snippet)` is false. Fewer outcomes than results when a
    /// limit stopped the run: the caller evaluates the rest one by one (see `ScriptRuntime.evaluateEach`).
    func runEach(_ snippet: ScriptSnippet, results: [String], environment: RuleEnvironment) -> [Result<RuleValue, any Error>]?
}
