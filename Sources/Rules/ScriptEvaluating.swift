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
