import BookRuleJSON
import BookRuleRegex

/// A JSONPath expression as Legado runs it (through Jayway JsonPath 2.x), compiled once and evaluated
/// against any number of JSON documents.
///
/// Supported forms: `$` (root; `@` at the top level means the root too, and a path without either is read
/// as if it started with `$.`, as Jayway does), `.name`, `['name']` / `["name"]`, `['a','b']`, `.*` / `[*]`,
/// `..name` / `..*` / `..[…]` (deep scan), `[n]` (negative counts from the end), `[a,b]`, slices
/// `[start:end]` and `[start:end:step]`, and filters `[?(…)]` with `@`/`$` paths, string, number,
/// `true`/`false`/`null`, `/regex/flags` and `[list]` literals, the operators `== != === !== < <= > >= =~`
/// and `in nin contains size empty subsetof anyof noneof`, `&&`, `||`, `!`, parentheses and existence tests
/// (`[?(@.k)]`). Path functions (`length()`, `min()`, …) are not supported and are reported at compile time.
///
/// Results follow Jayway: a *definite* path (only single names and single indexes, e.g. `$.data.list`,
/// `$[0].name`, or a final `['a','b']`, which merges the named members into one object) gives the value
/// itself or nothing; an indefinite one (`..`, `*`, filters, slices, index lists, non-final `['a','b']`)
/// gives every match in document order. A missing key, an out-of-range index or a step applied to the
/// wrong kind of value gives no result rather than an error. Details that differ from other JSONPath
/// implementations and are kept on purpose:
/// - a name step never maps over an array (`$.list.name` is empty when `list` is an array);
/// - `..x` visits an object before its members (pre-order); `..*` lists a container's children before
///   descending into them; and, as in Jayway, `..[0].x` reads `.x` of *every* element of each array;
/// - `[start:end]` without a step uses Jayway's arithmetic: `[-2:]` and `[:-1]` count from the end, but
///   `[start:end]` with a negative `end` and non-negative `start` is empty. A step (`[::2]`, `[::-1]`),
///   which Jayway ignores, uses RFC 9535 slice semantics;
/// - `==` between a number and a string compares numerically when the number is on the left and as text
///   when the string is; `<`-style operators only compare two numbers or two strings; `!=` is true when
///   the left path is missing; `=~` matches the whole value.
public struct JSONPath: Sendable {
    /// The expression as given to `init`.
    public let expression: String
    let query: Query

    /// Parses `expression` into steps.
    /// - Throws: `JSONPathError.invalid` naming the problem and its offset (in Unicode scalars).
    public init(_ expression: String) throws(JSONPathError) {
        self.expression = expression
        var parser = Parser(expression)
        self.query = try parser.parseExpression()
    }

    /// Whether the path can match at most one value (Jayway's "definite" path). A definite path whose
    /// value is an array still yields that one array.
    public var isDefinite: Bool { query.isDefinite }

    /// Every value the path selects from `root`, in document order; empty when nothing matches.
    public func evaluate(_ root: JSONValue) -> [JSONValue] {
        query.results(on: root, root: root)
    }
}

// MARK: - Errors

/// A JSONPath (or a `{$.…}` template piece) that cannot be compiled.
public enum JSONPathError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `expression` is not valid; `offset` counts Unicode scalars from the start of `expression`.
    case invalid(expression: String, message: String, offset: Int)

    /// The expression that failed to compile.
    public var expression: String {
        switch self { case .invalid(let expression, _, _): expression }
    }

    /// What is wrong, without the expression or the offset.
    public var message: String {
        switch self { case .invalid(_, let message, _): message }
    }

    /// Where the problem is, in Unicode scalars from the start of `expression`.
    public var offset: Int {
        switch self { case .invalid(_, _, let offset): offset }
    }

    /// `invalid JSONPath "$.data[": expected an index, … after '[' at offset 7`.
    public var description: String {
        "invalid JSONPath \"\(expression)\": \(message) at offset \(offset)"
    }
}

// MARK: - Compiled form

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

// MARK: - Evaluation

extension JSONPath.Query {
    /// All values selected from `start`; `root` is what `$` means inside filters.
    func results(on start: JSONValue, root: JSONValue) -> [JSONValue] {
        var out: [JSONValue] = []
        run(from: 0, on: start, root: root, into: &out)
        return out
    }

    private func run(from index: Int, on value: JSONValue, root: JSONValue, into out: inout [JSONValue]) {
        guard index < steps.count else {
            out.append(value)
            return
        }
        switch steps[index] {
        case .property(let names):
            guard case .object(let object) = value else { return }
            if names.count == 1 {
                if let member = object[names[0]] {
                    run(from: index + 1, on: member.value, root: root, into: &out)
                }
            } else if index == steps.count - 1 {
                // Jayway merges the present members into one new object (possibly empty).
                var merged: [(key: String, value: JSONNode)] = []
                for name in names where !merged.contains(where: { $0.key == name }) {
                    if let member = object[name] { merged.append((name, member)) }
                }
                out.append(.object(JSONObject(members: merged)))
            } else {
                for name in names {
                    if let member = object[name] {
                        run(from: index + 1, on: member.value, root: root, into: &out)
                    }
                }
            }
        case .wildcard:
            switch value {
            case .object(let object):
                for member in JSONPath.memberValues(object) {
                    run(from: index + 1, on: member, root: root, into: &out)
                }
            case .array(let elements):
                for element in elements {
                    run(from: index + 1, on: element.value, root: root, into: &out)
                }
            default:
                return
            }
        case .indexes(let list):
            guard case .array(let elements) = value else { return }
            for position in list {
                runElement(position, of: elements, from: index + 1, root: root, into: &out)
            }
        case .slice(let start, let end, let step):
            guard case .array(let elements) = value else { return }
            for position in JSONPath.slicePositions(count: elements.count, start: start, end: end, step: step) {
                runElement(position, of: elements, from: index + 1, root: root, into: &out)
            }
        case .filter(let filter):
            switch value {
            case .object:
                if filter.accepts(value, root: root) {
                    run(from: index + 1, on: value, root: root, into: &out)
                }
            case .array(let elements):
                for element in elements where filter.accepts(element.value, root: root) {
                    run(from: index + 1, on: element.value, root: root, into: &out)
                }
            default:
                return
            }
        case .deepScan:
            scan(value, target: index + 1, root: root, into: &out)
        }
    }

    /// Jayway's `handleArrayIndex`: a negative position counts from the end; out of range gives nothing.
    private func runElement(
        _ position: Int, of elements: [JSONNode], from index: Int, root: JSONValue, into out: inout [JSONValue]
    ) {
        let effective = position < 0 ? elements.count + position : position
        guard effective >= 0 && effective < elements.count else { return }
        run(from: index, on: elements[effective].value, root: root, into: &out)
    }

    /// Jayway's `ScanPathToken.walk`: at each container (the start included), applies the target step if the
    /// container can match it, then descends into the children in document order.
    private func scan(_ value: JSONValue, target: Int, root: JSONValue, into out: inout [JSONValue]) {
        switch value {
        case .object(let object):
            if scanAccepts(value, target: target, root: root) {
                run(from: target, on: value, root: root, into: &out)
            }
            for member in JSONPath.memberValues(object) {
                scan(member, target: target, root: root, into: &out)
            }
        case .array(let elements):
            if scanAccepts(value, target: target, root: root) {
                if target == steps.count - 1 {
                    run(from: target, on: value, root: root, into: &out)
                } else {
                    // Jayway skips the target step here and applies the rest to every element.
                    for element in elements {
                        run(from: target + 1, on: element.value, root: root, into: &out)
                    }
                }
            }
            for element in elements {
                scan(element.value, target: target, root: root, into: &out)
            }
        default:
            return
        }
    }

    /// Jayway's scan predicates: which containers the step after `..` is tried on.
    private func scanAccepts(_ value: JSONValue, target: Int, root: JSONValue) -> Bool {
        switch steps[target] {
        case .property(let names):
            guard case .object(let object) = value else { return false }
            let definite = names.count == 1 || target == steps.count - 1
            return !definite || names.allSatisfy { object[$0] != nil }
        case .indexes, .slice:
            if case .array = value { return true }
            return false
        case .wildcard:
            return true
        case .filter(let filter):
            return filter.accepts(value, root: root)
        case .deepScan:
            return false
        }
    }
}

extension JSONPath {
    /// An object's member values as Jayway's ordered map holds them: one per key, at the key's first
    /// position, with the last value written for it.
    static func memberValues(_ object: JSONObject) -> [JSONValue] {
        let members = object.members
        var duplicated = false
        if members.count <= 16 {
            outer: for later in members.indices {
                for earlier in 0..<later where members[earlier].key == members[later].key {
                    duplicated = true
                    break outer
                }
            }
        } else {
            var seen = Set<String>()
            for member in members where !seen.insert(member.key).inserted {
                duplicated = true
                break
            }
        }
        guard duplicated else { return members.map(\.value.value) }
        var order: [String] = []
        var values: [String: JSONValue] = [:]
        for member in members {
            if values[member.key] == nil { order.append(member.key) }
            values[member.key] = member.value.value
        }
        return order.compactMap { values[$0] }
    }

    /// The raw positions a slice visits (negative ones are resolved like `[n]`).
    static func slicePositions(count: Int, start: Int?, end: Int?, step: Int?) -> [Int] {
        if let step {
            return steppedSlicePositions(count: count, start: start, end: end, step: step)
        }
        guard count > 0 else { return [] }
        switch (start, end) {
        case (let from?, let to?):
            // Jayway's sliceBetween: `to` is capped, `from` is used as written.
            let upper = min(count, to)
            guard from < upper else { return [] }
            return Array(max(from, -count)..<upper)
        case (nil, let to?):
            let upper = min(count, to < 0 ? count + to : to)
            return upper > 0 ? Array(0..<upper) : []
        case (let from, nil):
            var lower = from ?? 0
            if lower < 0 { lower += count }
            lower = max(0, lower)
            return lower < count ? Array(lower..<count) : []
        }
    }

    /// RFC 9535 slice semantics, used when a step is written.
    private static func steppedSlicePositions(count: Int, start: Int?, end: Int?, step: Int) -> [Int] {
        func normalized(_ position: Int) -> Int { position >= 0 ? position : count + position }
        if step > 0 {
            let lower = min(max(normalized(start ?? 0), 0), count)
            let upper = min(max(normalized(end ?? count), 0), count)
            return lower < upper ? Array(stride(from: lower, to: upper, by: step)) : []
        }
        if step < 0 {
            let upper = min(max(start.map(normalized) ?? count - 1, -1), count - 1)
            let lower = min(max(end.map(normalized) ?? -1, -1), count - 1)
            return lower < upper ? Array(stride(from: upper, to: lower, by: step)) : []
        }
        return []
    }
}

// MARK: - Filters

extension JSONPath.Filter {
    func accepts(_ current: JSONValue, root: JSONValue) -> Bool {
        switch self {
        case .or(let left, let right):
            return left.accepts(current, root: root) || right.accepts(current, root: root)
        case .and(let left, let right):
            return left.accepts(current, root: root) && right.accepts(current, root: root)
        case .not(let inner):
            return !inner.accepts(current, root: root)
        case .exists(let query, let fromRoot):
            return !query.results(on: fromRoot ? root : current, root: root).isEmpty
        case .compare(let left, let comparison, let right):
            return comparison.holds(
                left.value(current: current, root: root), right.value(current: current, root: root))
        }
    }
}

extension JSONPath.Operand {
    func value(current: JSONValue, root: JSONValue) -> JSONPath.FilterValue {
        switch self {
        case .literal(let value):
            return value
        case .path(let query, let fromRoot):
            let results = query.results(on: fromRoot ? root : current, root: root)
            if query.isDefinite {
                return results.first.map(JSONPath.FilterValue.init) ?? .undefined
            }
            return .array(results)
        }
    }
}

extension JSONPath.Comparison {
    typealias Value = JSONPath.FilterValue

    func holds(_ left: Value, _ right: Value) -> Bool {
        switch self {
        case .equal:
            return Self.equal(left, right)
        case .notEqual:
            return !Self.equal(left, right)
        case .strictEqual:
            return Self.sameKind(left, right) && Self.equal(left, right)
        case .strictNotEqual:
            return !(Self.sameKind(left, right) && Self.equal(left, right))
        case .less:
            return Self.order(left, right).map { $0 < 0 } ?? false
        case .lessOrEqual:
            return Self.order(left, right).map { $0 <= 0 } ?? false
        case .greater:
            return Self.order(left, right).map { $0 > 0 } ?? false
        case .greaterOrEqual:
            return Self.order(left, right).map { $0 >= 0 } ?? false
        case .matches:
            switch (left, right) {
            case (.pattern, .pattern):
                return false
            case (.pattern(let pattern), let other), (let other, .pattern(let pattern)):
                return (try? pattern.matches(Self.matchInput(other))) ?? false
            default:
                return false
            }
        case .isIn:
            guard case .array(let list) = right else { return false }
            return list.contains { Self.equal(left, Value($0)) }
        case .notIn:
            guard case .array(let list) = right else { return false }
            return !list.contains { Self.equal(left, Value($0)) }
        case .contains:
            switch left {
            case .string(let text):
                guard case .string(let part) = right else { return false }
                return Self.containsText(text, part)
            case .array(let list):
                return list.contains { Self.equal(right, Value($0)) }
            default:
                return false
            }
        case .size:
            // Jayway truncates the expected size to an int.
            guard case .number(let literal) = right, let number = Double(literal), abs(number) < 1e15 else {
                return false
            }
            let expected = Int(number)
            switch left {
            case .string(let text): return text.utf16.count == expected
            case .array(let list): return list.count == expected
            default: return false
            }
        case .empty:
            guard case .bool(let expected) = right else { return false }
            switch left {
            case .string(let text): return text.isEmpty == expected
            case .array(let list): return list.isEmpty == expected
            case .object(let object): return object.members.isEmpty == expected
            default: return false
            }
        case .subsetOf:
            guard case .array(let items) = left, case .array(let allowed) = right else { return false }
            return items.allSatisfy { item in allowed.contains { Self.equal(Value(item), Value($0)) } }
        case .anyOf:
            guard case .array(let items) = left, case .array(let wanted) = right else { return false }
            return items.contains { item in wanted.contains { Self.equal(Value(item), Value($0)) } }
        case .noneOf:
            guard case .array(let items) = left, case .array(let unwanted) = right else { return false }
            return !items.contains { item in unwanted.contains { Self.equal(Value(item), Value($0)) } }
        }
    }

    /// Jayway's `left.equals(right)` on value nodes (asymmetric for number/string pairs).
    static func equal(_ left: Value, _ right: Value) -> Bool {
        switch (left, right) {
        case (.number(let number), .number(let other)), (.number(let number), .string(let other)):
            guard let lhs = JSONDecimal(number), let rhs = JSONDecimal(other) else { return false }
            return lhs == rhs
        case (.string(let text), .string(let other)), (.string(let text), .number(let other)):
            return text.utf16.elementsEqual(other.utf16)
        case (.bool(let flag), .bool(let other)):
            return flag == other
        case (.null, .null):
            return true
        case (.array(let list), .array(let other)):
            return list.count == other.count && zip(list, other).allSatisfy { JSONPath.jsonEqual($0, $1) }
        case (.object(let object), .object(let other)):
            return JSONPath.jsonEqual(.object(object), .object(other))
        default:
            return false
        }
    }

    private static func sameKind(_ left: Value, _ right: Value) -> Bool {
        switch (left, right) {
        case (.null, .null), (.bool, .bool), (.number, .number), (.string, .string),
             (.array, .array), (.object, .object), (.array, .object), (.object, .array):
            return true
        default:
            return false
        }
    }

    /// Numbers against numbers, strings against strings (UTF-16 order, as Java); otherwise `nil`.
    private static func order(_ left: Value, _ right: Value) -> Int? {
        switch (left, right) {
        case (.number(let number), .number(let other)):
            guard let lhs = JSONDecimal(number), let rhs = JSONDecimal(other) else { return nil }
            return lhs < rhs ? -1 : (lhs == rhs ? 0 : 1)
        case (.string(let text), .string(let other)):
            if text.utf16.elementsEqual(other.utf16) { return 0 }
            return text.utf16.lexicographicallyPrecedes(other.utf16) ? -1 : 1
        default:
            return nil
        }
    }

    private static func matchInput(_ value: Value) -> String {
        switch value {
        case .string(let text): text
        case .number(let literal): literal
        case .bool(let flag): flag ? "true" : "false"
        default: ""
        }
    }

    private static func containsText(_ text: String, _ part: String) -> Bool {
        let haystack = Array(text.utf16)
        let needle = Array(part.utf16)
        guard !needle.isEmpty else { return true }
        guard needle.count <= haystack.count else { return false }
        for start in 0...(haystack.count - needle.count)
        where haystack[start] == needle[0] && haystack[start..<start + needle.count].elementsEqual(needle) {
            return true
        }
        return false
    }
}

extension JSONPath {
    /// Structural equality as Java collections compare parsed JSON: arrays element by element, objects as
    /// maps (order ignored, last duplicate wins), numbers by value.
    static func jsonEqual(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.number(let number), .number(let other)):
            guard let lhs = JSONDecimal(number), let rhs = JSONDecimal(other) else { return number == other }
            return lhs == rhs
        case (.array(let list), .array(let other)):
            return list.count == other.count && zip(list, other).allSatisfy { jsonEqual($0.value, $1.value) }
        case (.object(let object), .object(let other)):
            var lhs: [String: JSONValue] = [:]
            var rhs: [String: JSONValue] = [:]
            for member in object.members { lhs[member.key] = member.value.value }
            for member in other.members { rhs[member.key] = member.value.value }
            guard lhs.count == rhs.count else { return false }
            return lhs.allSatisfy { key, value in rhs[key].map { jsonEqual(value, $0) } ?? false }
        case (.string(let text), .string(let other)):
            return text.utf16.elementsEqual(other.utf16)
        default:
            return left == right
        }
    }
}

/// An exact decimal number for filter comparisons (like Java's `BigDecimal.compareTo`), so that ids and
/// timestamps beyond `Double`'s precision still compare correctly. Value = ±0.d₁d₂… × 10^exponent.
struct JSONDecimal: Equatable, Comparable {
    private var negative = false
    /// Significant digits (0–9) without leading or trailing zeros; empty for zero.
    private var digits: [UInt8] = []
    private var exponent = 0

    /// Parses `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5` and `5.`); `nil` for anything else.
    init?(_ text: String) {
        var scalars = Array(text.utf8)[...]
        if let sign = scalars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            scalars = scalars.dropFirst()
        }
        var all: [UInt8] = []
        var integerCount = 0
        var seenPoint = false
        while let byte = scalars.first {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                all.append(byte - UInt8(ascii: "0"))
                if !seenPoint { integerCount += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            scalars = scalars.dropFirst()
        }
        guard !all.isEmpty else { return nil }
        var power = 0
        if let marker = scalars.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
            scalars = scalars.dropFirst()
            var exponentNegative = false
            if let sign = scalars.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                exponentNegative = sign == UInt8(ascii: "-")
                scalars = scalars.dropFirst()
            }
            guard !scalars.isEmpty else { return nil }
            while let byte = scalars.first, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                power = min(power * 10 + Int(byte - UInt8(ascii: "0")), 1_000_000_000)
                scalars = scalars.dropFirst()
            }
            if exponentNegative { power = -power }
        }
        guard scalars.isEmpty else { return nil }
        var exponent = integerCount + power
        var first = 0
        while first < all.count && all[first] == 0 {
            first += 1
            exponent -= 1
        }
        var last = all.count
        while last > first && all[last - 1] == 0 { last -= 1 }
        digits = Array(all[first..<last])
        if digits.isEmpty {
            negative = false
            exponent = 0
        }
        self.exponent = exponent
    }

    static func < (lhs: JSONDecimal, rhs: JSONDecimal) -> Bool {
        if lhs.negative != rhs.negative { return lhs.negative }
        let magnitude = compareMagnitude(lhs, rhs)
        return lhs.negative ? magnitude > 0 : magnitude < 0
    }

    private static func compareMagnitude(_ lhs: JSONDecimal, _ rhs: JSONDecimal) -> Int {
        switch (lhs.digits.isEmpty, rhs.digits.isEmpty) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        case (false, false): break
        }
        if lhs.exponent != rhs.exponent { return lhs.exponent < rhs.exponent ? -1 : 1 }
        for (left, right) in zip(lhs.digits, rhs.digits) where left != right {
            return left < right ? -1 : 1
        }
        return lhs.digits.count == rhs.digits.count ? 0 : (lhs.digits.count < rhs.digits.count ? -1 : 1)
    }
}

// MARK: - Parser

extension JSONPath {
    struct Parser {
        let expression: String
        let chars: [Unicode.Scalar]
        var position = 0
        var end: Int

        init(_ expression: String) {
            self.expression = expression
            self.chars = Array(expression.unicodeScalars)
            self.end = chars.count
        }

        // MARK: Paths

        mutating func parseExpression() throws(JSONPathError) -> Query {
            while position < end && Self.isSpace(chars[position]) { position += 1 }
            while end > position && Self.isSpace(chars[end - 1]) { end -= 1 }
            guard position < end else { throw failure("the path is empty", at: position) }
            var steps: [Step] = []
            if chars[position] == "$" || chars[position] == "@" {
                position += 1
            } else {
                // Jayway reads `data.list` as `$.data.list`.
                try parseChild(into: &steps, after: "a path without '$'", at: position, inFilter: false)
            }
            try parseSteps(into: &steps, inFilter: false)
            return Query(steps: steps)
        }

        /// Steps after `$`/`@` up to the end (top level) or to the first character that cannot continue
        /// a path (inside a filter).
        private mutating func parseSteps(into steps: inout [Step], inFilter: Bool) throws(JSONPathError) {
            while position < end {
                let character = chars[position]
                if character == "." {
                    let dot = position
                    if peek(1) == "." {
                        position += 2
                        steps.append(.deepScan)
                        try parseChild(into: &steps, after: "'..'", at: dot, inFilter: inFilter)
                    } else {
                        position += 1
                        try parseChild(into: &steps, after: "'.'", at: dot, inFilter: inFilter)
                    }
                } else if character == "[" {
                    steps.append(try parseBracket())
                } else if inFilter {
                    return
                } else {
                    throw failure("expected '.' or '[', found \(Self.describe(character))", at: position)
                }
            }
        }

        /// What follows `.` or `..`: a name, `*`, or a bracket.
        private mutating func parseChild(
            into steps: inout [Step], after what: String, at dot: Int, inFilter: Bool
        ) throws(JSONPathError) {
            guard position < end, !(inFilter && Self.endsFilterName(chars[position])) else {
                throw failure("a path must not end with \(what); add a name, '*' or '[…]'", at: dot)
            }
            let character = chars[position]
            if character == "." {
                throw failure("unexpected '.'", at: position)
            }
            if character == "[" {
                steps.append(try parseBracket())
                return
            }
            if character == "*" {
                position += 1
                if position < end {
                    let next = chars[position]
                    let fine = next == "." || next == "[" || (inFilter && Self.endsFilterName(next))
                    guard fine else {
                        throw failure("unexpected \(Self.describe(next)) after '*'", at: position)
                    }
                }
                steps.append(.wildcard)
                return
            }
            if Self.isSpace(character) {
                throw failure("a path must not end with \(what); add a name, '*' or '[…]'", at: dot)
            }
            let start = position
            while position < end {
                let next = chars[position]
                if next == "." || next == "[" { break }
                if next == "(" {
                    let name = String(String.UnicodeScalarView(chars[start..<position]))
                    throw failure("functions such as '\(name)()' are not supported", at: start)
                }
                if inFilter && Self.endsFilterName(next) { break }
                if Self.isSpace(next) {
                    throw failure("a name cannot contain spaces; write it in brackets: ['my name']", at: position)
                }
                position += 1
            }
            steps.append(.property([String(String.UnicodeScalarView(chars[start..<position]))]))
        }

        /// `[…]` at `position`: names, `*`, indexes, a slice or a filter.
        private mutating func parseBracket() throws(JSONPathError) -> Step {
            let open = position
            position += 1
            skipSpaces()
            guard position < end else { throw failure("'[' is not closed", at: open) }
            let character = chars[position]
            switch character {
            case "'", "\"":
                var names: [String] = []
                while true {
                    skipSpaces()
                    guard position < end, chars[position] == "'" || chars[position] == "\"" else {
                        throw failure("expected a quoted name", at: position)
                    }
                    names.append(try parseQuoted())
                    skipSpaces()
                    if position < end && chars[position] == "," {
                        position += 1
                        continue
                    }
                    break
                }
                try expectClose(open)
                return .property(names)
            case "*":
                position += 1
                skipSpaces()
                try expectClose(open)
                return .wildcard
            case "?":
                position += 1
                let filter = try parseOr()
                skipSpaces()
                try expectClose(open)
                return .filter(filter)
            case "-", ":", "0"..."9":
                return try parseIndexes(open: open)
            default:
                throw failure(
                    "expected a quoted name, an index, a slice, '*' or '?(…)' after '[', found "
                        + Self.describe(character),
                    at: position)
            }
        }

        private mutating func parseIndexes(open: Int) throws(JSONPathError) -> Step {
            var first: Int?
            if chars[position] != ":" { first = try parseInteger() }
            skipSpaces()
            if position < end && chars[position] == ":" {
                position += 1
                skipSpaces()
                var upper: Int?
                var step: Int?
                if startsInteger() {
                    upper = try parseInteger()
                    skipSpaces()
                }
                if position < end && chars[position] == ":" {
                    position += 1
                    skipSpaces()
                    if startsInteger() {
                        step = try parseInteger()
                        skipSpaces()
                    }
                }
                try expectClose(open)
                return .slice(start: first, end: upper, step: step)
            }
            var list: [Int] = first.map { [$0] } ?? []
            while position < end && chars[position] == "," {
                position += 1
                skipSpaces()
                list.append(try parseInteger())
                skipSpaces()
            }
            try expectClose(open)
            return .indexes(list)
        }

        private func startsInteger() -> Bool {
            guard position < end else { return false }
            return chars[position] == "-" || Self.isDigit(chars[position])
        }

        private mutating func parseInteger() throws(JSONPathError) -> Int {
            let start = position
            var negative = false
            if position < end && chars[position] == "-" {
                negative = true
                position += 1
            }
            guard position < end, Self.isDigit(chars[position]) else {
                let found = position < end ? Self.describe(chars[position]) : "the end"
                throw failure("expected an integer, found \(found)", at: position)
            }
            var value = 0
            while position < end, Self.isDigit(chars[position]) {
                let digit = Int(chars[position].value - 48)
                let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(digit)
                guard !overflow1 && !overflow2 && sum <= Int(Int32.max) else {
                    throw failure("the index is too large", at: start)
                }
                value = sum
                position += 1
            }
            return negative ? -value : value
        }

        private mutating func expectClose(_ open: Int) throws(JSONPathError) {
            guard position < end else {
                throw failure("expected ']' to close the '[' at offset \(open)", at: position)
            }
            guard chars[position] == "]" else {
                throw failure(
                    "expected ']' to close the '[' at offset \(open), found \(Self.describe(chars[position]))",
                    at: position)
            }
            position += 1
        }

        /// A quoted string at `position` (`'…'` or `"…"`), with backslash escapes decoded.
        private mutating func parseQuoted() throws(JSONPathError) -> String {
            let start = position
            let quote = chars[position]
            position += 1
            var text = String.UnicodeScalarView()
            while position < end {
                let character = chars[position]
                if character == quote {
                    position += 1
                    return String(text)
                }
                if character == "\\" {
                    position += 1
                    guard position < end else { break }
                    let escaped = chars[position]
                    switch escaped {
                    case "n": text.append("\n")
                    case "t": text.append("\t")
                    case "r": text.append("\r")
                    case "b": text.append("\u{08}")
                    case "f": text.append("\u{0C}")
                    case "u":
                        var code: UInt32 = 0
                        for offset in 1...4 {
                            guard position + offset < end, let digit = Self.hexValue(chars[position + offset]) else {
                                throw failure("'\\u' must be followed by four hex digits", at: position - 1)
                            }
                            code = code * 16 + digit
                        }
                        text.append(Unicode.Scalar(code) ?? "\u{FFFD}")
                        position += 4
                    default: text.append(escaped)
                    }
                    position += 1
                    continue
                }
                text.append(character)
                position += 1
            }
            throw failure("the string starting here is not closed with \(Self.describe(quote))", at: start)
        }

        // MARK: Filters

        private mutating func parseOr() throws(JSONPathError) -> Filter {
            var left = try parseAnd()
            while true {
                skipSpaces()
                guard consume("||") else { return left }
                left = .or(left, try parseAnd())
            }
        }

        private mutating func parseAnd() throws(JSONPathError) -> Filter {
            var left = try parseUnary()
            while true {
                skipSpaces()
                guard consume("&&") else { return left }
                left = .and(left, try parseUnary())
            }
        }

        private mutating func parseUnary() throws(JSONPathError) -> Filter {
            skipSpaces()
            guard position < end else { throw failure("the filter ends too early", at: position) }
            if chars[position] == "!" && peek(1) != "=" {
                position += 1
                return .not(try parseUnary())
            }
            if chars[position] == "(" {
                let open = position
                position += 1
                let inner = try parseOr()
                skipSpaces()
                guard position < end, chars[position] == ")" else {
                    let found = position < end ? ", found " + Self.describe(chars[position]) : ""
                    throw failure("expected ')' to close the '(' at offset \(open)\(found)", at: position)
                }
                position += 1
                return inner
            }
            return try parseComparison()
        }

        private mutating func parseComparison() throws(JSONPathError) -> Filter {
            let start = position
            let left = try parseOperand()
            skipSpaces()
            guard let comparison = try parseComparisonOperator() else {
                if case .path(let query, let fromRoot) = left { return .exists(query, fromRoot: fromRoot) }
                throw failure("a literal is not a condition; compare it with an operator such as '=='", at: start)
            }
            skipSpaces()
            let right = try parseOperand()
            return .compare(left, comparison, right)
        }

        private mutating func parseComparisonOperator() throws(JSONPathError) -> Comparison? {
            guard position < end else { return nil }
            let symbols: [(String, Comparison)] = [
                ("===", .strictEqual), ("!==", .strictNotEqual), ("==", .equal), ("!=", .notEqual),
                ("<=", .lessOrEqual), (">=", .greaterOrEqual), ("=~", .matches), ("<", .less), (">", .greater),
            ]
            for (symbol, comparison) in symbols where consume(symbol) {
                return comparison
            }
            if chars[position] == "=" {
                throw failure("use '==' to compare", at: position)
            }
            guard Self.isLetter(chars[position]) else { return nil }
            let start = position
            while position < end && Self.isLetter(chars[position]) { position += 1 }
            let word = String(String.UnicodeScalarView(chars[start..<position])).lowercased()
            switch word {
            case "in": return .isIn
            case "nin": return .notIn
            case "contains": return .contains
            case "size": return .size
            case "empty": return .empty
            case "subsetof": return .subsetOf
            case "anyof": return .anyOf
            case "noneof": return .noneOf
            default: throw failure("unknown filter operator '\(word)'", at: start)
            }
        }

        private mutating func parseOperand() throws(JSONPathError) -> Operand {
            skipSpaces()
            guard position < end else { throw failure("expected a value, found the end", at: position) }
            let character = chars[position]
            switch character {
            case "@", "$":
                position += 1
                var steps: [Step] = []
                try parseSteps(into: &steps, inFilter: true)
                return .path(Query(steps: steps), fromRoot: character == "$")
            case "'", "\"":
                return .literal(.string(try parseQuoted()))
            case "-", "0"..."9":
                return .literal(.number(try parseNumber()))
            case "/":
                return .literal(.pattern(try parseRegex()))
            case "[", "{":
                return .literal(try parseJSONLiteral())
            default:
                let start = position
                while position < end && Self.isLetter(chars[position]) { position += 1 }
                switch String(String.UnicodeScalarView(chars[start..<position])) {
                case "true": return .literal(.bool(true))
                case "false": return .literal(.bool(false))
                case "null": return .literal(.null)
                default:
                    throw failure(
                        "expected a value (an @ or $ path, a quoted string, a number, true, false, null, "
                            + "/regex/ or a [list]), found \(Self.describe(character))",
                        at: start)
                }
            }
        }

        private mutating func parseNumber() throws(JSONPathError) -> String {
            let start = position
            if chars[position] == "-" { position += 1 }
            let digitsStart = position
            while position < end && Self.isDigit(chars[position]) { position += 1 }
            guard position > digitsStart else { throw failure("expected a number after '-'", at: start) }
            if position < end && chars[position] == "." {
                position += 1
                let fraction = position
                while position < end && Self.isDigit(chars[position]) { position += 1 }
                guard position > fraction else { throw failure("expected digits after '.'", at: position) }
            }
            if position < end && (chars[position] == "e" || chars[position] == "E") {
                position += 1
                if position < end && (chars[position] == "+" || chars[position] == "-") { position += 1 }
                let exponent = position
                while position < end && Self.isDigit(chars[position]) { position += 1 }
                guard position > exponent else { throw failure("expected digits in the exponent", at: position) }
            }
            return String(String.UnicodeScalarView(chars[start..<position]))
        }

        /// `/pattern/flags`, compiled (PCRE2) to match the whole input as Java's `Matcher.matches()` does.
        private mutating func parseRegex() throws(JSONPathError) -> RegexPattern {
            let start = position
            position += 1
            while position < end && chars[position] != "/" {
                position += chars[position] == "\\" ? 2 : 1
            }
            guard position < end else { throw failure("the regex starting here is not closed with '/'", at: start) }
            let body = String(String.UnicodeScalarView(chars[(start + 1)..<position]))
            position += 1
            var options = ""
            var extended = false
            while position < end && Self.isLetter(chars[position]) {
                switch chars[position] {
                case "i": options += "i"
                case "m": options += "m"
                case "s": options += "s"
                case "x":
                    options += "x"
                    extended = true
                case "u", "U", "d": break
                default:
                    throw failure("unknown regex flag '\(chars[position])' (use i, m, s, x, u, U or d)", at: position)
                }
                position += 1
            }
            let prefix = (options.isEmpty ? "" : "(?\(options))") + #"\A(?:"#
            let pattern = prefix + body + (extended ? "\n" : "") + #")\z"#
            do {
                return try RegexPattern(pattern)
            } catch let error as RegexError {
                if case .compile(_, let message, let offset) = error {
                    let inBody = min(max(offset - prefix.unicodeScalars.count, 0), body.unicodeScalars.count)
                    throw failure("invalid regex /\(body)/: \(message)", at: start + 1 + inBody)
                }
                throw failure("invalid regex /\(body)/: \(error)", at: start)
            } catch {
                throw failure("invalid regex /\(body)/: \(error)", at: start)
            }
        }

        /// A `[…]` or `{…}` literal, read as lenient JSON (single quotes allowed).
        private mutating func parseJSONLiteral() throws(JSONPathError) -> FilterValue {
            let start = position
            var depth = 0
            var quote: Unicode.Scalar?
            while position < end {
                let character = chars[position]
                if let open = quote {
                    if character == "\\" {
                        position += 1
                    } else if character == open {
                        quote = nil
                    }
                } else if character == "'" || character == "\"" {
                    quote = character
                } else if character == "[" || character == "{" {
                    depth += 1
                } else if character == "]" || character == "}" {
                    depth -= 1
                    if depth == 0 {
                        position += 1
                        break
                    }
                }
                position += 1
            }
            guard depth == 0 else {
                throw failure("the \(Self.describe(chars[start])) literal starting here is not closed", at: start)
            }
            let text = String(String.UnicodeScalarView(chars[start..<position]))
            do throws(JSONSyntaxError) {
                return FilterValue(try JSONParser.parse(text, lenient: true).value)
            } catch {
                let offset = error.location.line == 1 ? start + error.location.column - 1 : start
                throw failure("invalid literal: \(error.message)", at: offset)
            }
        }

        // MARK: Characters

        private mutating func skipSpaces() {
            while position < end && Self.isSpace(chars[position]) { position += 1 }
        }

        private func peek(_ distance: Int) -> Unicode.Scalar? {
            position + distance < end ? chars[position + distance] : nil
        }

        private mutating func consume(_ symbol: String) -> Bool {
            var index = position
            for scalar in symbol.unicodeScalars {
                guard index < end, chars[index] == scalar else { return false }
                index += 1
            }
            position = index
            return true
        }

        private func failure(_ message: String, at offset: Int) -> JSONPathError {
            .invalid(expression: expression, message: message, offset: offset)
        }

        /// Characters that end a dot-notation name inside a filter (besides `.` and `[`).
        private static func endsFilterName(_ character: Unicode.Scalar) -> Bool {
            switch character {
            case ")", "]", ",", "<", ">", "=", "!", "~", "&", "|": true
            default: isSpace(character)
            }
        }

        private static func isSpace(_ character: Unicode.Scalar) -> Bool {
            character == " " || character == "\t" || character == "\n" || character == "\r"
        }

        private static func isDigit(_ character: Unicode.Scalar) -> Bool {
            character >= "0" && character <= "9"
        }

        private static func isLetter(_ character: Unicode.Scalar) -> Bool {
            (character >= "a" && character <= "z") || (character >= "A" && character <= "Z")
        }

        private static func hexValue(_ character: Unicode.Scalar) -> UInt32? {
            switch character {
            case "0"..."9": character.value - 48
            case "a"..."f": character.value - 87
            case "A"..."F": character.value - 55
            default: nil
            }
        }

        private static func describe(_ character: Unicode.Scalar) -> String {
            "'\(character)'"
        }
    }
}
