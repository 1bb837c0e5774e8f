import BookRuleJSON
import BookRuleRegex

extension JSONPath {
    /// A compiled path: the steps after `$` or `@`.
    struct Query: Sendable {
        let steps: [Step]
        let isDefinite: Bool

        init(steps: [Step]) {
            self.steps = steps
            var definite = true
            for (index, step) in steps.enumerated() {
                switch step {
                case .property(let names):
                    // Jayway merges several names into one object only on the last step.
                    if names.count > 1 && index != steps.count - 1 { definite = false }
                case .indexes(let list):
                    if list.count != 1 { definite = false }
                case .wildcard, .slice, .filter, .deepScan:
                    definite = false
                }
            }
            self.isDefinite = definite
        }
    }

    /// One step of a path.
    enum Step: Sendable {
        /// `.name`, `['name']` or `['a','b']`.
        case property([String])
        /// `.*` or `[*]`.
        case wildcard
        /// `[n]` or `[a,b,…]`.
        case indexes([Int])
        /// `[start:end]` or `[start:end:step]`.
        case slice(start: Int?, end: Int?, step: Int?)
        /// `[?(…)]`.
        case filter(Filter)
        /// `..`: the next step is applied at every depth (the parser guarantees there is one).
        case deepScan
    }

    /// A filter condition.
    indirect enum Filter: Sendable {
        case or(Filter, Filter)
        case and(Filter, Filter)
        case not(Filter)
        /// `@.k` alone: true when the path selects something (even `null` or `false`).
        case exists(Query, fromRoot: Bool)
        case compare(Operand, Comparison, Operand)
    }

    /// One side of a comparison.
    enum Operand: Sendable {
        /// `@…` (relative to the filtered value) or `$…` (relative to the document root).
        case path(Query, fromRoot: Bool)
        case literal(FilterValue)
    }

    /// Jayway's relational operators.
    enum Comparison: Sendable {
        case equal, notEqual, strictEqual, strictNotEqual
        case less, lessOrEqual, greater, greaterOrEqual
        case matches
        case isIn, notIn, contains, size, empty, subsetOf, anyOf, noneOf
    }

    /// A value inside a filter, after evaluating a path or reading a literal (Jayway's `ValueNode`).
    enum FilterValue: Sendable {
        /// A path that selected nothing.
        case undefined
        case null
        case bool(Bool)
        /// The literal text, e.g. `"1687595408889"` or `"1.5"`.
        case number(String)
        case string(String)
        /// An array from the document or a `[…]` literal, or the results of an indefinite path.
        case array([JSONValue])
        case object(JSONObject)
        /// A `/regex/flags` literal, compiled to match the whole input.
        case pattern(RegexPattern)

        init(_ value: JSONValue) {
            switch value {
            case .null: self = .null
            case .bool(let flag): self = .bool(flag)
            case .number(let literal): self = .number(literal)
            case .string(let text): self = .string(text)
            case .array(let nodes): self = .array(nodes.map(\.value))
            case .object(let object): self = .object(object)
            }
        }
    }
}
