import BookRuleRules

/// What the engine reports while a step runs, so a checker can say rule by rule what matched and what broke.
///
/// The engine defines this and `bookrule test`'s checker implements it, so tracing needs no dependency from the
/// engine on the checker. Calls come from whichever thread runs the step: implementations synchronise.
public protocol RuleTracing: Sendable {
    /// One evaluation of a string rule that produced `values`, or failed with `error`.
    func record(_ rule: Rule, values: [String], error: String?)
    /// One evaluation of a list rule that selected `count` elements, or failed with `error`.
    func record(list rule: Rule, count: Int, error: String?)
    /// One page fetched.
    func record(fetch: FetchTrace)
}

extension RuleTracing {
    /// A string rule that succeeded.
    func record(_ rule: Rule, values: [String]) { record(rule, values: values, error: nil) }
    /// A list rule that succeeded.
    func record(list rule: Rule, count: Int) { record(list: rule, count: count, error: nil) }
}
