import BookRuleRules
import BookRuleScript
import Testing
import TestSupport

/// `ScriptRuntime.evaluateEach`: one snippet run for many `result`s in one call into the engine, against
/// `evaluate` run once per result.
@Suite("Script runtime: one snippet for many results in one call")
struct ScriptEachTests {
    let runtime: ScriptRuntime

    init() throws {
        runtime = try ScriptRuntime(jsLib: nil, limits: ScriptLimits(timeLimit: .milliseconds(300)), host: RecordingScriptHost())
    }

    static let results = ["  第一章   开始 ", "", "😀 𠀀 “引号”", "a\u{0}b", "第五章 坏", String(repeating: "长", count: 5000)]

    func snippet(_ code: String) -> ScriptSnippet {
        ScriptSnippet(code: code, field: "ruleToc.chapterName", placement: .atJS)
    }

    /// What `evaluate` gives for each result, one evaluation each: the value's summary or the error.
    func oneByOne(_ code: String, bindings: ScriptBindings = ScriptBindings(baseURL: "https://each.test/")) -> [String] {
        Self.results.map { result in
            let environment = RuleEnvironment(baseURL: bindings.baseURL, script: ScriptScope(runtime: runtime, bindings: bindings))
            do {
                return try runtime.evaluate(snippet(code), bindings: bindings, result: .text(result), context: .text(""),
                                            environment: environment).summary
            } catch {
                return "\(error)"
            }
        }
    }

    /// What `evaluateEach` gives, in the same form; nil when it does not run the snippet.
    func together(_ code: String, bindings: ScriptBindings = ScriptBindings(baseURL: "https://each.test/")) -> [String]? {
        let environment = RuleEnvironment(baseURL: bindings.baseURL, script: ScriptScope(runtime: runtime, bindings: bindings))
        return runtime.evaluateEach(snippet(code), bindings: bindings, results: Self.results, environment: environment)?.map { outcome in
            switch outcome {
            case .success(let value): return value.summary
            case .failure(let error): return "\(error)"
            }
        }
    }

    /// `together`, the results it left (it stops before an element it does not read itself) evaluated one by
    /// one, as the engine's caller does.
    func completed(_ code: String) -> [String]? {
        guard let batched = together(code) else { return nil }
        return batched + oneByOne(code).dropFirst(batched.count)
    }

    @Test("the same values and errors as one evaluation per result", arguments: [
        "result.replace(/\\s+/g, ' ').trim()",
        "result.length",
        "result ? [result, baseUrl] : null",
        "({title: result})",
        "[]",
        "if (result.indexOf('坏') >= 0) throw new Error('bad ' + result); result + '!'",
        "var parts = result.split(' '); parts.length",
        "undefinedName + result",
        "JSON.parse(result)",
        "key + page + title",
        "String.fromCharCode(0xD800) + result + String.fromCharCode(0xDC00)",
        "result.length % 2 ? result : result.length",
        "result.slice(0, 1)",
    ])
    func sameAsOneByOne(_ code: String) throws {
        let expected = oneByOne(code)
        let batched = try #require(completed(code))
        #expect(batched == expected)
    }

    @Test("a value or an error whose reading runs the snippet's own code (a getter, a toString) is read under the time limit", .tags(.realTime), arguments: [
        "({get x() { for (;;) {} }})",
        "({toString() { for (;;) {} }})",
        "if (result.length > 3) throw {toString() { for (;;) {} }}; result.length",
    ])
    func readingUnderTheLimit(_ code: String) throws {
        let clock = ContinuousClock()
        let started = clock.now
        let batched = try #require(completed(code))
        #expect(clock.now - started < TestTime.bound(.seconds(30)))
        #expect(batched == oneByOne(code))
    }

    @Test("a setter a snippet puts on Array.prototype never reaches the runner's own arrays or arguments")
    func prototypeSetterDoesNotReachTheRunner() throws {
        let code = """
            Object.defineProperty(Array.prototype, '2', {configurable: true, set: function grab(v) {
                Object.defineProperty(Array.prototype, 'grabbed', {configurable: true, value: String(grab.caller)}) }});
            [].grabbed === undefined ? result.length : 'reached'
            """
        #expect(runtime.evaluatesEach(snippet(code)))
        let batched = try #require(completed(code))
        #expect(!batched.contains { $0.contains("reached") }, "\(batched)")
        #expect(batched == oneByOne(code))
    }

    @Test("a helper reached by a path the snippet's text does not show stops the call there, even when caught")
    func hiddenHelperIsEvaluatedOnItsOwn() throws {
        let code = """
            ((g) => { try { g['ja' + 'va'].put('k', result); return g['ja' + 'va'].get('k') } catch (e) { return 'refused' } })(
                []['constr' + 'uctor']['constr' + 'uctor']('return globalT' + 'his')())
            """
        #expect(runtime.evaluatesEach(snippet(code)))
        let batched = try #require(completed(code))
        #expect(!batched.contains("refused"), "\(batched)")
        #expect(batched == oneByOne(code))
    }

    @Test("snippets that reach the host, the globals or a per-element binding are not run together")
    func notRunTogether() throws {
        for code in ["java.put('a', result)", "src.length", "book.name", "chapter.title", "this.result", "eval('result')",
                     "cache.get('x')", "print(result)", "org.jsoup.Jsoup.parse(result)", "globalThis.x"] {
            #expect(!runtime.evaluatesEach(snippet(code)), "\(code)")
        }
        #expect(!runtime.evaluatesEach(snippet("result +")), "a syntax error is reported one evaluation at a time")
        #expect(runtime.evaluatesEach(snippet("result.trim()")))
        let withLib = try ScriptRuntime(jsLib: "function tidy(s) { return s.trim() }", host: RecordingScriptHost())
        #expect(!withLib.evaluatesEach(snippet("tidy(result)")))
        #expect(!withLib.evaluatesEach(snippet("result.trim()")))
    }

    @Test("an endless loop for one result is stopped by the time limit: the results before it kept, its error the last", .tags(.realTime))
    func endlessLoop() throws {
        let clock = ContinuousClock()
        let started = clock.now
        let outcomes = try #require(together("if (result.indexOf('坏') >= 0) { while (true) {} } result.length"))
        #expect(clock.now - started < TestTime.bound(.seconds(30)))
        #expect(outcomes.count == 5)
        #expect(Array(outcomes.prefix(4)) == Array(oneByOne("result.length").prefix(4)))
        #expect(outcomes.last?.contains("CPU time limit") == true, "\(outcomes)")
        // The runtime goes on.
        #expect(try runtime.text("result.trim()", result: .text(" x ")) == "x")
    }

    @Test("each result has the time limit of one evaluation, not the whole call")
    func limitPerResult() throws {
        // About 120 ms of busy waiting per result under a 300 ms limit: six results would exceed it together.
        let outcomes = try #require(together("(function (until) { while (Date.now() < until) {} })(Date.now() + 120); result.length"))
        #expect(outcomes.count == Self.results.count)
        #expect(!outcomes.contains { $0.contains("limit") }, "\(outcomes)")
    }

    @Test("many results: chunked calls give every value in order")
    func manyResults() throws {
        let results = (0..<5000).map { "第\($0)章 \u{20000}" }
        let bindings = ScriptBindings(baseURL: "https://each.test/")
        let environment = RuleEnvironment(baseURL: bindings.baseURL, script: ScriptScope(runtime: runtime, bindings: bindings))
        let outcomes = try #require(runtime.evaluateEach(snippet("result.slice(1, -3)"), bindings: bindings, results: results,
                                                         environment: environment))
        let texts = outcomes.map { (try? $0.get())?.strings.first ?? "" }
        #expect(texts == (0..<5000).map { "\($0)章" })
    }
}
