import BookRuleJSON

/// JSON values built in Gson's manner (for serve's answers and the WebDAV backup): members in the entity's declaration order, a nil member left out (Gson
/// writes no nulls), numbers as numbers.
package enum LegadoJSON {
    private static let here = SourceLocation(line: 1, column: 1)

    /// An object of the members that have a value, in order.
    package static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(members: members.compactMap { key, value in value.map { (key, JSONNode($0, location: here)) } }))
    }

    /// An array.
    package static func array(_ items: [JSONValue]) -> JSONValue {
        .array(items.map { JSONNode($0, location: here) })
    }

    /// A string.
    package static func string(_ text: String) -> JSONValue { .string(text) }

    /// A string, or nothing when it is empty (an unset optional field of Legado's).
    package static func optional(_ text: String?) -> JSONValue? {
        guard let text, !text.isEmpty else { return nil }
        return .string(text)
    }

    /// A whole number.
    package static func number<Integer: BinaryInteger>(_ value: Integer) -> JSONValue { .number(String(value)) }

    /// A Boolean.
    package static func bool(_ value: Bool) -> JSONValue { .bool(value) }
}
