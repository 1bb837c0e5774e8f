import BookRuleJSON

extension JSONValue {
    /// The value as a rule result string, as Legado turns JSONPath results into text: a string as is
    /// (no quotes), a number as written in the response (`1.0` stays `1.0`, `1687595408889` is not
    /// reformatted), `true`/`false`, `null` as "" (Legado's `toString()` on null fails and yields ""), and
    /// an array or object as compact JSON text.
    ///
    /// Legado renders a nested object inside a list with Java's `Map.toString()` (`{a=1, b=x}`), which is
    /// not JSON; bookrule writes JSON instead.
    public var ruleText: String {
        switch self {
        case .null: ""
        case .bool(let flag): flag ? "true" : "false"
        case .number(let literal): literal
        case .string(let text): text
        case .array, .object: serialized()
        }
    }
}

extension JSONPath {
    /// The path's result as a list of strings, as Legado's `AnalyzeByJSonPath.getStringList` gives it: a
    /// definite path whose value is an array gives one string per element (Jayway's arrays are Java lists);
    /// otherwise one string per result. Each string is `ruleText`.
    public func strings(from root: JSONValue) -> [String] {
        let results = evaluate(root)
        if isDefinite, let only = results.first, case .array(let elements) = only {
            return elements.map(\.value.ruleText)
        }
        return results.map(\.ruleText)
    }

    /// The path's result as one string, as Legado's `AnalyzeByJSonPath.getString` gives it: `strings(from:)`
    /// joined with line breaks; "" when nothing matches.
    public func string(from root: JSONValue) -> String {
        strings(from: root).joined(separator: "\n")
    }
}
