/// A JSON object that keeps its members exactly as written: in source order,
/// including duplicate keys and keys the application does not know about.
///
/// Book sources are edited by hand, so keeping the order lets them be
/// re-serialized without reshuffling, and keeping unknown keys lets them be
/// reported or passed through instead of silently dropped.
public struct JSONObject: Sendable, Equatable {
    /// The members in source order. Duplicate keys are kept as separate entries.
    public var members: [(key: String, value: JSONNode)]

    /// Creates an object from members in the given order.
    public init(members: [(key: String, value: JSONNode)] = []) {
        self.members = members
    }

    /// The value of the member named `key`, or `nil` if there is none.
    /// When a key occurs more than once the last occurrence wins, as in most
    /// JSON parsers (including the Gson parser used by Legado).
    public subscript(key: String) -> JSONNode? {
        var index = members.count
        while index > 0 {
            index -= 1
            if members[index].key == key { return members[index].value }
        }
        return nil
    }

    /// All member keys in source order, duplicates included.
    public var keys: [String] {
        members.map(\.key)
    }

    /// Two objects are equal when they have the same members (keys and values)
    /// in the same order; locations are ignored, as in `JSONNode`.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for index in lhs.members.indices {
            let left = lhs.members[index]
            let right = rhs.members[index]
            if left.key != right.key || left.value != right.value { return false }
        }
        return true
    }
}
