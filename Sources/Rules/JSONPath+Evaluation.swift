import BookRuleJSON
import BookRuleRegex

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
