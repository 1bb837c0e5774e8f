import BookRuleJSON
import BookRuleRegex

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
