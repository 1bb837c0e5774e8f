import BookRuleCheck
import BookRuleDocument
import BookRuleEngine
import BookRuleJSON
import BookRuleRules

/// What an edit shows: the source compiled from the editor's text, every field of the step's section run on
/// the step's page (values after the engine's cleaning, warnings, errors), and the elements the focused
/// field matched, by their number in the frame. The list rule runs once and every field reads its elements,
/// as the engine does; rule evaluation has the rule layer's own limits (regex match limit, XPath depth).
package struct StudioEvaluation: Sendable {
    /// The answer, as the page reads it.
    package struct Answer: Sendable, Codable, Equatable {
        /// The source text's JSON syntax error, if it has one (then nothing else is filled in).
        package var syntaxError: Problem?
        /// The source's problems and warnings (`lint`'s), with where they are.
        package var problems: [Problem] = []
        /// The page the fields ran on; nil when the step has none yet.
        package var page: PageSummary?
        /// One entry per field the section writes, in the section's order.
        package var fields: [Field] = []
        /// What the focused field matched.
        package var focus: Focus?
        /// Time spent evaluating, in milliseconds.
        package var milliseconds: Double = 0
    }

    /// One problem of the source.
    package struct Problem: Sendable, Codable, Equatable {
        /// The field (`ruleToc.chapterList`), or empty for the whole source.
        package var field: String
        /// Where in the text, 1-based; 0 when unknown.
        package var line: Int
        package var column: Int
        /// What is wrong.
        package var reason: String
        /// `error` (the field cannot run) or `warning` (it runs, but probably not as meant).
        package var severity: String
    }

    /// The page a step looks at.
    package struct PageSummary: Sendable, Codable, Equatable {
        package var url: String
        package var status: Int
        package var origin: String
        package var charset: String
        package var elements: Int
    }

    /// One field's result.
    package struct Field: Sendable, Codable, Equatable {
        /// The field's name in the section (`chapterName`).
        package var field: String
        /// The rule as written.
        package var rule: String
        /// The dialect it was read as; empty when it does not compile.
        package var dialect: String
        /// The XPath it runs as, when that differs from what was written.
        package var translations: [String]
        /// The first values after cleaning (for the list rule: a short path of each element).
        package var values: [String]
        /// How many values (list elements) there are in all.
        package var count: Int
        /// Warnings: a probable misreading, elements that gave nothing.
        package var warnings: [String]
        /// Why the field cannot run, if it cannot.
        package var error: String?
    }

    /// What the focused field matched.
    package struct Focus: Sendable, Codable, Equatable {
        /// The field.
        package var field: String
        /// Frame numbers of the matched elements (the element holding a matched attribute or text node).
        package var nodes: [Int]
        /// How many nodes the rule matched in all (a text node and its element count as one each).
        package var count: Int
        /// Matched nodes the frame does not show (inside `<script>` or `<head>`, say).
        package var unmarked: Int
        /// Why nothing can be marked, when the rule yields text rather than nodes (regex, JSONPath, JavaScript).
        package var note: String?
    }

    /// At most this many values per field are sent (all are counted).
    package static let valueLimit = 20

    /// Why an evaluation gave up before its end: `shouldStop` said so (its client went away, or a newer edit
    /// superseded it).
    package struct Stopped: Error, Sendable {}

    /// Compiles `sourceText` and runs `step`'s section on `page`, marking what `focus` matched. `shouldStop` is
    /// asked between fields and between list elements; when it says yes the work ends with `Stopped`, so an
    /// abandoned request stops using the CPU (one rule on one element is bounded by the rule layer's limits).
    package static func evaluate(sourceText: String, step: StudioStep, page: StudioPage?, focus: String?,
                                 shouldStop: () -> Bool = { false }) throws(Stopped) -> Answer {
        let clock = ContinuousClock()
        let started = clock.now
        var answer = Answer()
        let source: BookSource
        do {
            let sources = try BookSource.load(bytes: Array(sourceText.utf8), path: "source")
            guard let first = sources.first else { return answer }
            source = first
        } catch {
            var problem = Problem(field: "", line: 0, column: 0, reason: "\(error)", severity: "error")
            if case .syntax(_, let syntax) = error {
                problem.line = syntax.location.line
                problem.column = syntax.location.column
                problem.reason = syntax.message  // the page shows the line and column itself
            }
            answer.syntaxError = problem
            return answer
        }
        answer.problems = source.problems.map { Problem($0, severity: "error") } + source.warnings.map { Problem($0, severity: "warning") }
        let section = source.section(step.section)
        guard let page else {
            answer.fields = fields(of: section, values: [:])
            answer.milliseconds = milliseconds(clock.now - started)
            return answer
        }
        let document = page.document
        answer.page = PageSummary(url: page.url, status: page.status, origin: page.origin, charset: document.charset.description,
                                  elements: page.sanitized.elements.count)
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let root = document.rootContext
        var results: [RuleField: Result] = [:]

        // The list rule first: the other fields of a list section read inside its elements.
        let listField = section.name.fields.first { $0.isList }
        var items: [RuleContext]?
        if let listField, let rule = section[listField] {
            do {
                let elements = try rule.elements(in: root, environment: environment)
                items = elements
                results[listField] = Result(values: elements.prefix(valueLimit).map(describe), count: elements.count)
            } catch {
                results[listField] = Result(error: error.reason)
            }
        }
        for field in section.name.fields where field != listField {
            guard let rule = section[field] else { continue }
            if shouldStop() { throw Stopped() }
            do {
                if let listField, section[listField] != nil {
                    guard let items else { results[field] = Result(error: "the list rule \(listField.rawValue) failed"); continue }
                    var values: [String] = []
                    var count = 0
                    var empty = 0
                    for item in items {
                        if shouldStop() { throw Stopped() }
                        let texts = try rule.texts(in: item, environment: environment).map(RuleTrial.cleaned)
                        count += texts.count
                        if texts.allSatisfy(\.isEmpty) { empty += 1 }
                        for text in texts where values.count < valueLimit { values.append(text) }
                    }
                    var result = Result(values: values, count: count)
                    if !items.isEmpty && empty == items.count {
                        result.warnings.append("gave nothing in any of the \(items.count) list element(s)")
                    } else if empty > 0 {
                        result.warnings.append("gave nothing in \(empty) of the \(items.count) list element(s)")
                    }
                    results[field] = result
                } else {
                    let texts = try rule.texts(in: root, environment: environment).map(RuleTrial.cleaned)
                    results[field] = Result(values: Array(texts.prefix(valueLimit)), count: texts.count)
                }
            } catch let stopped as Stopped {
                throw stopped
            } catch let error as RuleError {
                results[field] = Result(error: error.reason)
            } catch {
                results[field] = Result(error: "\(error)")
            }
        }
        answer.fields = fields(of: section, values: results)
        if let focus, let field = RuleField(rawValue: focus), let rule = section[field] {
            answer.focus = try mark(rule: rule, field: field, section: section, items: items, page: page, environment: environment,
                                    shouldStop: shouldStop)
        }
        answer.milliseconds = milliseconds(clock.now - started)
        return answer
    }

    /// One field's values while they are computed.
    private struct Result {
        var values: [String] = []
        var count = 0
        var warnings: [String] = []
        var error: String?
    }

    private static func fields(of section: RuleSection, values: [RuleField: Result]) -> [Field] {
        section.name.fields.compactMap { field -> Field? in
            guard let raw = section.raw[field.rawValue], let text = raw.value.stringValue ?? raw.value.intValue.map(String.init),
                  !text.trimmingASCIIWhitespace().isEmpty else {
                return section.problems[field].map { Field(field: field.rawValue, rule: "", dialect: "", translations: [], values: [],
                                                            count: 0, warnings: [], error: $0.reason) }
            }
            let rule = section[field]
            let result = values[field]
            let prefix = section.name.rawValue + "." + field.rawValue
            var warnings = section.warnings.filter { $0.field.hasSuffix(prefix) }.map(\.reason)
            warnings += result?.warnings ?? []
            return Field(field: field.rawValue, rule: text, dialect: rule?.dialect?.rawValue ?? "",
                         translations: rule?.xpathTranslations ?? [], values: result?.values ?? [], count: result?.count ?? 0,
                         warnings: warnings, error: section.problems[field]?.reason ?? result?.error)
        }
    }

    /// The nodes `rule` matched: on the page, or inside each list element for a field of a list section.
    private static func mark(rule: Rule, field: RuleField, section: RuleSection, items: [RuleContext]?, page: StudioPage,
                             environment: RuleEnvironment, shouldStop: () -> Bool) throws(Stopped) -> Focus {
        var focus = Focus(field: field.rawValue, nodes: [], count: 0, unmarked: 0, note: nil)
        var matched: [HTMLNode] = []
        do {
            if field.isList {
                for case .node(let node) in items ?? [] { matched.append(node) }
                if let items, matched.count < items.count { focus.note = "the list rule yields text, not nodes: nothing to mark" }
                if items == nil { focus.note = "the list rule failed" }
            } else if let items, let list = section.name.fields.first(where: \.isList), section[list] != nil {
                for item in items {
                    if shouldStop() { throw Stopped() }
                    guard let nodes = try rule.matchedNodes(in: item, environment: environment) else {
                        focus.note = "this rule yields text, not nodes: nothing to mark"
                        break
                    }
                    matched += nodes
                }
            } else if let nodes = try rule.matchedNodes(in: page.document.rootContext, environment: environment) {
                matched = nodes
            } else {
                focus.note = "this rule yields text, not nodes: nothing to mark"
            }
        } catch let stopped as Stopped {
            throw stopped
        } catch let error as RuleError {
            focus.note = error.reason
        } catch {
            focus.note = "\(error)"
        }
        focus.count = matched.count
        var seen = Set<Int>()
        for node in matched {
            guard let number = page.sanitized.number(of: node) else {
                focus.unmarked += 1
                continue
            }
            if seen.insert(number).inserted { focus.nodes.append(number) }
        }
        return focus
    }

    private static func describe(_ context: RuleContext) -> String {
        switch context {
        case .node(let node): return node.shortPath()
        case .match(let match): return match[0] ?? ""
        case .text(let text): return text
        case .json(let value): return value.serialized()
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

extension StudioEvaluation.Problem {
    init(_ problem: SourceProblem, severity: String) {
        self.init(field: problem.field, line: problem.location?.line ?? 0, column: problem.location?.column ?? 0,
                  reason: problem.reason, severity: severity)
    }
}
