import BookRuleJSON

/// Reads the plain fields of a Legado entity as Gson does, so a file the app imports reads the same here: a
/// string field takes a number or a boolean as its text, a boolean takes `"true"`/`"false"` written as a
/// string, a number takes one written as a string, and `null` or an absent key leaves the field's default.
/// A value Gson would refuse (an object or array where text is expected) is recorded as a problem naming the
/// field, and the field keeps its default.
struct GsonFields {
    /// The entity's members.
    let object: JSONObject
    /// `[3].` for the fourth entity of an array file, else empty.
    let prefix: String
    /// What could not be read, in the order the fields were read.
    private(set) var problems: [SourceProblem] = []

    init(object: JSONObject, prefix: String) {
        self.object = object
        self.prefix = prefix
    }

    /// A text field; nil when absent, null, or of a type Gson refuses.
    mutating func string(_ key: String) -> String? {
        guard let node = object[key] else { return nil }
        switch node.value {
        case .string(let value): return value
        case .number(let literal): return literal
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return nil
        default:
            refuse(key, node, expected: "a string")
            return nil
        }
    }

    /// A yes/no field; nil (the default) when absent or null.
    mutating func bool(_ key: String) -> Bool? {
        guard let node = object[key] else { return nil }
        switch node.value {
        case .bool(let flag): return flag
        case .string(let text): return text.trimmingASCIIWhitespace().lowercased() == "true"
        case .number(let literal): return literal != "0"
        case .null: return nil
        default:
            refuse(key, node, expected: "true or false")
            return nil
        }
    }

    /// A whole-number field; nil (the default) when absent or null.
    mutating func int(_ key: String) -> Int? {
        int64(key).map { Int(clamping: $0) }
    }

    /// A whole-number field of 64 bits (times in milliseconds); nil (the default) when absent or null.
    mutating func int64(_ key: String) -> Int64? {
        guard let node = object[key] else { return nil }
        let text: String
        switch node.value {
        case .number(let literal): text = literal
        case .string(let value): text = value.trimmingASCIIWhitespace()
        case .null: return nil
        default:
            refuse(key, node, expected: "a number")
            return nil
        }
        if let value = Int64(text) { return value }
        if let double = Double(text), double.isFinite, double >= -9.2e18, double <= 9.2e18 { return Int64(double) }
        refuse(key, node, expected: "a number")
        return nil
    }

    private mutating func refuse(_ key: String, _ node: JSONNode, expected: String) {
        problems.append(SourceProblem(field: prefix + key, location: node.location,
                                      reason: "expected \(expected), found \(node.value.typeName)"))
    }
}
