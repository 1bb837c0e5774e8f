import BookRuleJSON
import BookRuleRules

extension BookSource {
    /// What loading reads of `exploreUrl`: the text, its script or its categories, and its problems.
    struct ExploreField {
        var text: String?
        var script: ScriptSnippet?
        var categories: [ExploreCategory]?
        var needsScript = false
        var problems: [SourceProblem] = []
    }

    /// Reads `exploreUrl`: JavaScript (`@js:`, or `<js>` up to the last `<`, as Legado cuts it) is checked
    /// and kept to run when the categories are asked for; the text and JSON forms are parsed now, and each
    /// category's URL compiled as a URL template, so lint names a broken one.
    static func exploreURL(_ value: String?, field: String, location: SourceLocation?) -> ExploreField {
        var result = ExploreField()
        guard let value, !value.trimmingASCIIWhitespace().isEmpty else { return result }
        result.text = value
        if let code = exploreScriptCode(value) {
            let snippet = ScriptSnippet(code: code, field: field, placement: .whole)
            if let reason = ScriptCheck.problem(in: [snippet]) {
                result.problems.append(SourceProblem(field: field, location: location, dialect: .javaScript, reason: reason))
            } else {
                result.script = snippet
                result.needsScript = true
            }
            return result
        }
        do {
            let categories = try ExploreCategory.parse(value)
            for category in categories {
                guard let url = category.url else { continue }
                let template = try URLTemplate(url, field: field)
                if let reason = ScriptCheck.problem(in: template.scripts) {
                    throw RuleError(field: field, dialect: .javaScript, reason: "category \"\(category.title)\": \(reason)", rule: url)
                }
                if template.needsScript { result.needsScript = true }
            }
            result.categories = categories
        } catch let error as ExploreError {
            result.problems.append(SourceProblem(field: field, location: location, reason: error.reason))
        } catch let error as RuleError {
            result.problems.append(SourceProblem(field: field, location: location, dialect: error.dialect, reason: error.reason))
        } catch {
            result.problems.append(SourceProblem(field: field, location: location, reason: "\(error)"))
        }
        return result
    }

    /// The code of an `exploreUrl` written as JavaScript, or nil.
    static func exploreScriptCode(_ text: String) -> String? {
        let trimmed = text.trimmingASCIIWhitespace()
        let lower = trimmed.lowercased()
        if lower.hasPrefix("@js:") { return String(trimmed.dropFirst(4)) }
        if lower.hasPrefix("<js>") {
            let body = trimmed.dropFirst(4)
            guard let end = body.lastIndex(of: "<") else { return String(body) }
            return String(body[..<end])
        }
        return nil
    }
}
