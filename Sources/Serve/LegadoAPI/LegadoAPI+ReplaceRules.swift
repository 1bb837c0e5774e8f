import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import Foundation

extension LegadoAPI {
    // MARK: - Replace rules

    /// Every rule, as Legado answers: `data` is the JSON text of the array (a string), not the array; in `order`,
    /// as Legado's query sorts them (ties in the file's order). Each rule's `id` is its Legado id, kept when it
    /// has one (`ReplaceRuleSet.legadoIDs`).
    func replaceRules() throws(ServeFailure) -> HTTPServerResponse {
        let set = try library.replaceRules()
        let listed = zip(set.rules, set.legadoIDs()).enumerated().sorted {
            ($0.element.0.order, $0.offset) < ($1.element.0.order, $1.offset)
        }
        let array = LegadoJSON.array(listed.map { LegadoReplaceRule(rule: $0.element.0, id: $0.element.1).json })
        return LegadoEnvelope.success(.string(array.serialized()))
    }

    /// Saves a rule as Legado does: the one with its `id` is replaced, else it is added (with the time as its id
    /// when it has none); a rule without an `order` goes after the others.
    func saveReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request, empty: "数据不能为空", invalid: "格式不对")
        var rule = try Self.rule(object)
        let ordered = ["order", "sortOrder"].contains { key in object[key].map { $0.value != .null } ?? false }
        // A rule the rules file would leave out when read again would be saved and never listed: refused instead.
        if let problem = ReplaceRuleSet.problem(of: rule) { throw ServeFailure("格式不对 (\(problem))") }
        if rule.replacement.hasPrefix("@js:") {
            throw ServeFailure("格式不对 (the replacement is JavaScript (@js:), which bookrule does not run)")
        }
        try library.changeReplaceRules { (set) throws(ServeFailure) in
            set.assignLegadoIDs()
            if !ordered { rule.order = (set.rules.map(\.order).max() ?? 0) + 1 }
            if let id = rule.id, let index = set.rules.firstIndex(where: { $0.id == id }) {
                set.rules[index] = rule
            } else {
                let now = Int(Date().timeIntervalSince1970 * 1000)
                rule.id = rule.id ?? max(now, (set.rules.compactMap(\.id).max() ?? 0) + 1)
                set.rules.append(rule)
            }
        }
        return LegadoEnvelope.success(.string(""))
    }

    /// Deletes the rule with the `id` given (as `getReplaceRules` lists it), or, without an id, the one with the
    /// `name` and `pattern` given.
    func deleteReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request, empty: "数据不能为空", invalid: "格式不对")
        try library.changeReplaceRules { (set) throws(ServeFailure) in
            set.assignLegadoIDs()
            let index: Int?
            if let id = object["id"]?.value.intValue {
                index = set.rules.firstIndex { $0.id == id }
            } else {
                let pattern = object["pattern"]?.value.stringValue
                let name = object["name"]?.value.stringValue ?? pattern
                index = set.rules.firstIndex { $0.name == name && $0.pattern == pattern }
            }
            guard let index else { throw ServeFailure("no such replace rule") }
            set.rules.remove(at: index)
        }
        return LegadoEnvelope.success(.string(""))
    }

    /// Runs one rule (`rule`: an object, or its JSON text) over `text`, whatever its scope, and answers the result.
    func testReplaceRule(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request, empty: "数据不能为空", invalid: "格式不对")
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
}
