import BookRule

extension FuzzTarget {
    /// One runtime for every input, as a source's runtime serves every rule: starting JavaScriptCore per input
    /// would measure start-up, not the glue. A short time limit keeps endless loops well under libFuzzer's
    /// hang threshold of a second.
    static let scriptRuntime: ScriptRuntime? = try? ScriptRuntime(
        jsLib: "function fuzzHelper(x) { return String(x).length; }",
        limits: ScriptLimits(timeLimit: .milliseconds(100), heapLimit: 64 << 20, maxNesting: 4),
        host: FuzzScriptHost())

    static func script(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        let code = text(rest)
        _ = ScriptRuntime.checkSyntax(code)
        _ = ScriptRuntime.unsupportedHelpers(in: code)
        guard let runtime = scriptRuntime else { return nil }
        let scope = ScriptScope(runtime: runtime, bindings: ScriptBindings(key: "长夜", page: 1, baseURL: FuzzContexts.baseURL))
        let environment = RuleEnvironment(baseURL: FuzzContexts.baseURL, variables: RuleVariables(), script: scope)
        let context = FuzzContexts.context(selector / 4)
        let ruleText: String
        switch selector % 4 {
        case 0:
            let snippet = ScriptSnippet(code: code, field: "fuzz", placement: .atJS)
            _ = try? scope.run(snippet, result: .text("result"), in: context, environment: environment)
            return nil
        case 1: ruleText = "@js:" + code
        case 2: ruleText = "class.list@tag.a@text<js>" + code + "</js>"
        default: ruleText = "{{" + code + "}}"
        }
        _ = try? RuleParser.parse(ruleText, field: "fuzz", kind: .string).strings(in: context, environment: environment)
        return nil
    }
}
