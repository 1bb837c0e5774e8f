import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary

extension ReadingAPI {
    // MARK: - Replace rules

    /// Every rule, as Legado answers: `data` is the JSON text of the array (a string), not the array.
    func replaceRules() throws(ServeFailure) -> HTTPServerResponse {
        let rules = try library.replaceRules().rules
        let array = LegadoJSON.array(rules.enumerated().map { LegadoReplaceRule(rule: $1, id: $0 + 1).json })
        return LegadoEnvelope.success(.string(array.serialized()))
    }

    /// Saves a rule: the one whose number is its `id` when the pattern matches it too, else the one of its
    /// name, else a new one.
    func saveReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request)
        let rule = try Self.rule(object)
        try library.changeReplaceRules { (set) throws(ServeFailure) in
            if let index = Self.index(of: object, in: set) {
                set.rules[index] = rule
            } else {
                set.add([rule])
            }
        }
        return LegadoEnvelope.success(.string(""))
    }

    /// Deletes the rule named by `id` (its number) and `pattern`, or by `name` and `pattern`.
    func deleteReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request)
        try library.changeReplaceRules { (set) throws(ServeFailure) in
            guard let index = Self.index(of: object, in: set) else { throw ServeFailure("no such replace rule") }
            set.rules.remove(at: index)
        }
        return LegadoEnvelope.success(.string(""))
    }

    /// Runs one rule (`rule`: an object, or its JSON text) over `text`, whatever its scope, and answers the result.
    func testReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request)
        var ruleObject = object["rule"]?.value.objectValue
        if ruleObject == nil, let text = object["rule"]?.value.stringValue {
            ruleObject = try? JSONParser.parse(text, lenient: true).value.objectValue
        }
        guard let ruleObject, let text = object["text"]?.value.stringValue else {
            throw ServeFailure("格式不对 (give rule and text)")
        }
        var rule = try Self.rule(ruleObject)
        rule.scope = ""
        rule.excludeScope = ""
        rule.isEnabled = true
        rule.scopeContent = true
        let run = ReplaceRuleRun([rule], bookName: "", sourceURL: "")
        let result = run.apply(text, to: .content)
        guard run.warnings.isEmpty else { throw ServeFailure(run.warnings.joined(separator: "; ")) }
        return LegadoEnvelope.success(.string(result))
    }

    private static func rule(_ object: JSONObject) throws(ServeFailure) -> ReplaceRule {
        do {
            return try ReplaceRule(legado: object, path: "the request")
        } catch {
            throw ServeFailure("\(error)")
        }
    }

    /// The rule an object names: by its `id` (the rule's number) with the same pattern, else by name and pattern.
    private static func index(of object: JSONObject, in set: ReplaceRuleSet) -> Int? {
        let pattern = object["pattern"]?.value.stringValue
        if let id = object["id"]?.value.intValue, id >= 1, id <= set.rules.count, set.rules[id - 1].pattern == pattern {
            return id - 1
        }
        let name = object["name"]?.value.stringValue ?? pattern
        return set.rules.firstIndex { $0.name == name && $0.pattern == pattern }
    }
}
