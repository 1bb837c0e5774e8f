import BookRuleJSON
import BookRuleRules

/// The rules of an RSS source, compiled by the same parser as a book source's: `ruleArticles` selects the
/// articles of a page (a leading `-` reverses them), the field rules read each one, `ruleNextPage` finds the
/// next page (`PAGE`: the same sort URL with the next `{{page}}`), `ruleContent` reads an article's page.
/// Without `ruleArticles` the page is read as an RSS or Atom feed and the field rules are not used.
public struct RssRules: Sendable {
    /// The rule fields of an RSS source, in Legado's order.
    public enum Field: String, Sendable, CaseIterable {
        case ruleArticles, ruleNextPage, ruleTitle, rulePubDate, ruleDescription, ruleImage, ruleLink, ruleContent
    }

    /// Each field's text as written (empty fields left out).
    public let texts: [Field: String]
    /// Each usable field, compiled.
    public let compiled: [Field: Rule]
    /// Whether `ruleNextPage` is `PAGE` (any case): paging by `{{page}}` in the sort URL rather than by a link.
    public let nextPageByNumber: Bool
    /// The fields that could not be compiled, in Legado's order.
    public let problems: [SourceProblem]

    /// The compiled rule of `field`, if written and usable.
    public subscript(field: Field) -> Rule? { compiled[field] }

    /// Whether the source reads its pages as a feed (no `ruleArticles` written), as Legado's
    /// RssParserByRule decides.
    public var readsFeed: Bool { texts[.ruleArticles] == nil }

    /// Whether any rule runs JavaScript.
    public var hasScripts: Bool { compiled.values.contains { !$0.scripts.isEmpty } }

    /// Compiles the rule fields of `object` (`prefix` is `[3].` in an array file).
    init(object: JSONObject, prefix: String) {
        var texts: [Field: String] = [:]
        var compiled: [Field: Rule] = [:]
        var problems: [SourceProblem] = []
        var nextPageByNumber = false
        var listIsAllInOne = false
        for field in Field.allCases {
            guard let node = object[field.rawValue] else { continue }
            let path = prefix + field.rawValue
            let text: String
            switch node.value {
            case .string(let value): text = value
            case .number(let literal): text = literal
            case .null: continue
            default:
                problems.append(SourceProblem(field: path, location: node.location,
                                              reason: "expected a rule string, found \(node.value.typeName)"))
                continue
            }
            // Legado tests ruleArticles with isNullOrBlank and ruleNextPage with isNullOrEmpty.
            if text.trimmingASCIIWhitespace().isEmpty { continue }
            texts[field] = text
            if field == .ruleNextPage, text.uppercased() == "PAGE" {
                nextPageByNumber = true
                continue
            }
            let kind: RuleKind = field == .ruleArticles ? .list : (listIsAllInOne && field != .ruleContent && field != .ruleNextPage ? .groupField : .string)
            do {
                let rule = try RuleParser.parse(text, field: path, kind: kind)
                if field == .ruleArticles, rule.dialect == .allInOne { listIsAllInOne = true }
                if let reason = ScriptCheck.problem(in: rule.scripts) {
                    problems.append(SourceProblem(field: path, location: node.location, dialect: .javaScript, reason: reason))
                    continue
                }
                compiled[field] = rule
            } catch {
                problems.append(SourceProblem(field: path, location: node.location, dialect: error.dialect, reason: error.reason))
            }
        }
        self.texts = texts
        self.compiled = compiled
        self.nextPageByNumber = nextPageByNumber
        self.problems = problems
    }
}
