import BookRuleLocking
import BookRuleEngine
import BookRuleRules
import BookRuleDocument
import BookRuleHTTP
import BookRuleRules

/// Collects what each rule did while an engine step ran: how often it ran, how many values it found, the first
/// values, and failures. `bookrule test` prints this so an author sees which rule broke.
///
/// Aggregated per field (a chapter-name rule runs once per chapter), in the order fields first ran.
public final class RuleTracer: RuleTracing {
    private let state = Locked<State>(State())

    private struct State {
        var order: [String] = []
        var entries: [String: RuleTraceEntry] = [:]
        var fetches: [FetchTrace] = []
    }

    /// Creates an empty tracer.
    public init() {}

    /// Records one evaluation of a string rule that produced `values` (or failed with `error`).
    public func record(_ rule: Rule, values: [String], error: String?) {
        record(rule, count: values.count, samples: values, error: error)
    }

    /// Records one evaluation of a list rule that selected `count` elements (or failed with `error`).
    public func record(list rule: Rule, count: Int, error: String?) {
        record(rule, count: count, samples: [], error: error)
    }

    private func record(_ rule: Rule, count: Int, samples: [String], error: String?) {
        state.withLock { state in
            if state.entries[rule.field] == nil {
                state.order.append(rule.field)
                state.entries[rule.field] = RuleTraceEntry(field: rule.field, dialect: rule.dialect?.rawValue, rule: rule.text)
            }
            state.entries[rule.field]?.add(count: count, samples: samples, error: error)
        }
    }

    /// Records one page fetched.
    public func record(fetch: FetchTrace) {
        state.withLock { $0.fetches.append(fetch) }
    }

    /// What was recorded, then clears it, so one tracer can serve consecutive steps.
    public func drain() -> (rules: [RuleTraceEntry], fetches: [FetchTrace]) {
        state.withLock { state in
            let result = (state.order.compactMap { state.entries[$0] }, state.fetches)
            state = State()
            return result
        }
    }
}

/// What one rule did over a step.
public struct RuleTraceEntry: Sendable, Equatable, Codable {
    /// The field path, e.g. `ruleToc.chapterName`.
    public var field: String
    /// The dialect the rule was detected as.
    public var dialect: String?
    /// The rule text.
    public var rule: String
    /// How many times the rule ran (once per list element for field rules).
    public var runs: Int = 0
    /// How many values it produced in all (list rules: elements).
    public var matches: Int = 0
    /// How many runs produced nothing (or only empty strings).
    public var emptyRuns: Int = 0
    /// The first few non-empty values, shortened.
    public var firstValues: [String] = []
    /// The first error, when a run failed.
    public var error: String?

    init(field: String, dialect: String?, rule: String) {
        self.field = field
        self.dialect = dialect
        self.rule = rule
    }

    mutating func add(count: Int, samples: [String], error: String?) {
        runs += 1
        matches += count
        if count == 0 || (!samples.isEmpty && samples.allSatisfy({ $0.isEmpty })) { emptyRuns += 1 }
        if self.error == nil { self.error = error }
        for value in samples where firstValues.count < 3 && !value.isEmpty {
            let line = HTMLTextFormatter.collapsingWhitespace(value)
            firstValues.append(line.count > 80 ? String(line.prefix(79)) + "…" : line)
        }
    }
}
