import BookRuleRules

/// One source's JavaScript: one JavaScriptCore context group and global context on a thread of its own
/// (JavaScriptCore serialises work per group, and its time limit is per thread, so all of the source's
/// JavaScript runs there), the source's `jsLib` evaluated once into the global scope, snippets
/// syntax-checked and compiled once.
///
/// Why a thread of its own rather than the caller's (which would save two thread wake-ups per evaluation):
/// run inline on the dispatch threads that call it, an endless loop was once seen not to be stopped by
/// JavaScriptCore's watchdog during a parallel test run (docs/performance.md); on a thread the runtime
/// starts, it always is.
///
/// Evaluations follow Legado: the completion value of the snippet is its result (no `return` needed), and
/// each evaluation has its own scope (top-level `var`, `let`, `const` and functions of one snippet are not
/// seen by the next; `jsLib`'s are seen by all), with `this` the global object. See docs/architecture.md.
public final class ScriptRuntime: Sendable {
    private let thread: ScriptThread
    /// The limits every evaluation runs under.
    public let limits: ScriptLimits

    /// Starts the engine and evaluates `jsLib` (nil or blank: none).
    /// - Throws: `ScriptError.syntax` or `.thrown` (field `jsLib`) when `jsLib` does not parse or run,
    ///   `.engineUnavailable` when JavaScriptCore cannot start.
    public init(jsLib: String?, limits: ScriptLimits = .init(), host: any ScriptHost) throws(ScriptError) {
        self.limits = limits
        thread = ScriptThread(name: "bookrule-js \(host.sourceKey)")
        let thread = thread
        do {
            try thread.run { () throws(ScriptError) in
                thread.worker = try ScriptWorker(jsLib: jsLib, limits: limits, host: host)
            }
        } catch {
            thread.stop()
            throw error
        }
    }

    deinit {
        thread.stop()
    }

    /// An executor that runs tasks on the runtime's thread. A step whose rules evaluate this runtime's
    /// JavaScript runs there as a whole, so each evaluation runs at once instead of being handed to the
    /// thread and back (two thread wake-ups, more than a short snippet takes: a TOC calls one per chapter).
    /// Work the thread waits for (a script's fetch) must not need the thread itself.
    public var stepExecutor: any TaskExecutor { executor }

    private var executor: ScriptThreadExecutor { ScriptThreadExecutor(thread: thread) }

    /// Runs `snippet` and gives its completion value as a rule value.
    ///
    /// The snippet sees `result`, `src`, the `bindings` and the helpers (`java`, `source`, `cookie`,
    /// `cache`) as variables of its own evaluation (and as globals when it reaches for the global object or
    /// `jsLib` reads them, see `ScriptWorker.evaluate`). `result`: `.text` a string; `.texts` an array (with
    /// `size()`/`get(i)` as on a Java list); one `.items` element as itself (an element as a one-element
    /// `Elements`, a page as its source text, a JSON object as an object that also reads as its JSON text);
    /// several items as an array of elements and objects. `src` is the context's raw text.
    /// `java.getString(rule)` and friends run rules on `context` in `environment` (whose `variables`
    /// `java.put`/`java.get` use).
    ///
    /// The value returned: strings, numbers (integral ones without `.0`) and booleans → `.text`; an array of
    /// strings → `.texts`; elements, objects, or arrays of them → `.items` (objects as `.json`); an empty
    /// array → `.items([])` (a value the chain goes on with, as in Legado); `null` and `undefined` →
    /// `.none` (which ends the chain).
    ///
    /// Runs on the runtime's thread, waiting for it; when called from that thread (a helper evaluating a
    /// rule with JavaScript) it runs at once, nested, under the outer evaluation's time limit.
    public func evaluate(_ snippet: ScriptSnippet, bindings: ScriptBindings, result: RuleValue,
                         context: RuleContext, environment: RuleEnvironment) throws(ScriptError) -> RuleValue {
        let thread = thread
        return try thread.run { () throws(ScriptError) -> RuleValue in
            guard let worker = thread.worker else { throw .engineUnavailable("the runtime has stopped") }
            return try worker.evaluate(snippet, bindings: bindings, result: result, context: context,
                                       environment: environment)
        }
    }

    /// Whether `evaluateEach` runs `snippet` for many results at once: a snippet whose value depends on its
    /// `result` and the step's bindings alone, in a source without `jsLib` (see `ScriptWorker.evaluatesEach`).
    public func evaluatesEach(_ snippet: ScriptSnippet) -> Bool {
        let thread = thread
        return (try? thread.run { () throws(ScriptError) -> Bool in thread.worker?.evaluatesEach(snippet) ?? false }) ?? false
    }

    /// Runs `snippet` with `result` each of `results` in turn, in one call into the engine (per chunk), and
    /// gives for each what `evaluate(_:bindings:result:context:environment:)` with `.text(result)` would give
    /// or throw; nil when `evaluatesEach(snippet)` is false. Each element keeps the time limit of one
    /// evaluation. Fewer outcomes than results when a limit stopped the call: after a time limit the last
    /// outcome is that element's error; otherwise the caller evaluates the rest one by one.
    public func evaluateEach(_ snippet: ScriptSnippet, bindings: ScriptBindings, results: [String],
                             environment: RuleEnvironment) -> [Result<RuleValue, ScriptError>]? {
        let thread = thread
        return (try? thread.run { () throws(ScriptError) -> [Result<RuleValue, ScriptError>]? in
            thread.worker?.evaluateEach(snippet, bindings: bindings, results: results, environment: environment)
        }) ?? nil
    }

    /// Checks `code` without running it, as `evaluate` would parse it (line numbers are the snippet's).
    /// - Returns: nil when it parses.
    public static func checkSyntax(_ code: String) -> ScriptSyntaxError? {
        SyntaxChecker.shared.runnableForm(of: code).error
    }

    /// The `java.*` helpers and Java access `code` names that cannot run here (browsers, files, reflection,
    /// helpers Legado has and bookrule has not), each once, in order of first appearance. A lint reports
    /// these without running the snippet.
    public static func unsupportedHelpers(in code: String) -> [ScriptHelperProblem] {
        ScriptHelpers.problems(in: code)
    }
}
