import BookRuleJSON

/// A kept source as Gson writes Legado's `BookSource` entity: every field of the entity in its declaration
/// order, those the kept JSON lacks (or holds as null) with the entity's defaults (`customOrder` 0, `enabled`
/// and `enabledExplore` true, `respondTime` 180000, …), nullable ones without a value left out. Members the
/// entity does not have (another program's, a newer Legado's) follow as they were kept, so an edit in the web
/// client's source editor loses none of them.
package enum LegadoBookSource {
    /// The entity's fields in order, with the default Gson writes when there is no value (nil: nullable, left out).
    package static let fields: [(name: String, fallback: JSONValue?)] = [
        ("bookSourceUrl", .string("")), ("bookSourceName", .string("")), ("bookSourceGroup", nil),
        ("bookSourceType", .number("0")), ("bookUrlPattern", nil), ("customOrder", .number("0")),
        ("enabled", .bool(true)), ("enabledExplore", .bool(true)), ("jsLib", nil), ("enabledCookieJar", .bool(true)),
        ("concurrentRate", nil), ("header", nil), ("loginUrl", nil), ("loginUi", nil), ("loginCheckJs", nil),
        ("coverDecodeJs", nil), ("bookSourceComment", nil), ("variableComment", nil),
        ("lastUpdateTime", .number("0")), ("respondTime", .number("180000")), ("weight", .number("0")),
        ("exploreUrl", nil), ("exploreScreen", nil), ("ruleExplore", nil), ("searchUrl", nil), ("ruleSearch", nil),
        ("ruleBookInfo", nil), ("ruleToc", nil), ("ruleContent", nil), ("ruleReview", nil),
    ]

    private static let names = Set(fields.map(\.name))

    /// `object` as the entity.
    package static func entity(_ object: JSONObject) -> JSONValue {
        var members: [(String, JSONValue?)] = fields.map { field in
            guard let value = object[field.name]?.value, value != .null else { return (field.name, field.fallback) }
            return (field.name, value)
        }
        for (name, node) in object.members where !names.contains(name) && node.value != .null {
            members.append((name, node.value))
        }
        return LegadoJSON.object(members)
    }

    /// The kept JSON text of a source as the entity; nil when it is not a JSON object.
    package static func entity(json: String) -> JSONValue? {
        (try? JSONParser.parse(json, lenient: true).value.objectValue).map { entity($0) }
    }
}
