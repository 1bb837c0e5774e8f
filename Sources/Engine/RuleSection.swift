import BookRuleJSON
import BookRuleRules

/// The compiled rules of one section (`ruleToc`, …): each field either compiled or recorded as a problem.
public final class RuleSection: Sendable {
    /// Which section this is.
    public let name: RuleSectionName
    /// Compiled rules by field; a field that is absent or empty has no entry.
    public let rules: [RuleField: Rule]
    /// Fields whose rule could not be compiled or uses an unsupported dialect.
    public let problems: [RuleField: SourceProblem]
    /// Rules that compile but probably do not mean what their author wrote (XPath without its leading `/`,
    /// a `replaceRegex` without `##`): they run as written, and `lint` says how to write what was meant.
    public let warnings: [SourceProblem]
    /// The section's raw members as written, including fields bookrule does not use.
    public let raw: JSONObject

    /// `rules` by `RuleField.ordinal`, for the per-chapter lookups.
    private let table: [Rule?]

    /// The compiled rule for `field`, if present and usable.
    public subscript(field: RuleField) -> Rule? { table[field.ordinal] }

    init(name: RuleSectionName, rules: [RuleField: Rule], problems: [RuleField: SourceProblem], raw: JSONObject,
         warnings: [SourceProblem] = []) {
        self.name = name
        self.rules = rules
        self.problems = problems
        self.warnings = warnings
        self.raw = raw
        var table = [Rule?](repeating: nil, count: RuleField.allCases.count)
        for (field, rule) in rules { table[field.ordinal] = rule }
        self.table = table
    }

    /// Whether the list rule of this section is an AllInOne regex (so the other fields read `$n` groups).
    public var isAllInOne: Bool {
        name.fields.first.flatMap { rules[$0]?.dialect } == .allInOne
    }

    /// Compiles a section from its JSON value (an object, or a string holding one, as both occur in the wild).
    static func compile(_ name: RuleSectionName, node: JSONNode?, pathPrefix: String) -> (RuleSection, [SourceProblem]) {
        var problems: [SourceProblem] = []
        let path = pathPrefix + name.rawValue
        var object = JSONObject(members: [])
        // Locations inside a section written as a JSON string are positions in that string, not in the
        // file: problems then point at the string itself.
        var insideString = false
        if let node {
            switch node.value {
            case .object(let value):
                object = value
            case .string(let text) where text.trimmingASCIIWhitespace().isEmpty:
                break
            case .string(let text):
                do {
                    let inner = try JSONParser.parse(text, lenient: true)
                    if case .object(let value) = inner.value {
                        object = value
                        insideString = true
                    } else {
                        problems.append(SourceProblem(field: path, location: node.location,
                                                      reason: "expected an object (or a JSON string holding one), found a string holding \(inner.value.typeName)"))
                    }
                } catch {
                    problems.append(SourceProblem(field: path, location: node.location,
                                                  reason: "the JSON string holding this section is invalid: \(error)"))
                }
            case .null:
                break
            default:
                problems.append(SourceProblem(field: path, location: node.location,
                                              reason: "expected an object or a JSON string, found \(node.value.typeName)"))
            }
        }

        var rules: [RuleField: Rule] = [:]
        var fieldProblems: [RuleField: SourceProblem] = [:]
        var warnings: [SourceProblem] = []
        var listIsAllInOne = false
        for field in name.fields {
            guard let valueNode = object[field.rawValue] else { continue }
            let fieldPath = path + "." + field.rawValue
            let location = insideString ? node?.location : valueNode.location
            let text: String
            switch valueNode.value {
            case .string(let value): text = value
            case .null: continue
            case .number(let literal): text = literal
            default:
                let problem = SourceProblem(field: fieldPath, location: location,
                                            reason: "expected a rule string, found \(valueNode.value.typeName)")
                fieldProblems[field] = problem
                continue
            }
            if text.trimmingASCIIWhitespace().isEmpty { continue }
            let kind: RuleKind = field.isList ? .list : (listIsAllInOne ? .groupField : .string)
            do {
                let rule = try RuleParser.parse(text, field: fieldPath, kind: kind)
                if field.isList && rule.dialect == .allInOne { listIsAllInOne = true }
                if let reason = ScriptCheck.problem(in: rule.scripts) {
                    fieldProblems[field] = SourceProblem(field: fieldPath, location: location, dialect: .javaScript,
                                                         reason: reason)
                    continue
                }
                rules[field] = rule
                let misreading = field == .replaceRegex
                    ? RuleMisreading.replaceRegexWarning(for: text) : RuleMisreading.warning(for: text, kind: kind)
                if let misreading {
                    // A misread path is about how Legado reads it by default, as JSoup (its JSONPath reading, which
                    // the parser falls back to when no selector can be made of it, means nothing on a page).
                    let dialect = field == .replaceRegex ? rule.dialect : .jsoup
                    warnings.append(SourceProblem(field: fieldPath, location: location, dialect: dialect, reason: misreading))
                }
            } catch {
                fieldProblems[field] = SourceProblem(field: fieldPath, location: location,
                                                     dialect: error.dialect, reason: error.reason)
            }
        }
        problems += name.fields.compactMap { fieldProblems[$0] }
        return (RuleSection(name: name, rules: rules, problems: fieldProblems, raw: object, warnings: warnings), problems)
    }
}
