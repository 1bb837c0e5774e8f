import BookRuleJSON

/// A kept RSS source as Gson writes Legado's `RssSource` entity: every field of the entity in its declaration
/// order, those the kept JSON lacks (or holds as null) with the entity's defaults (`enabled`,
/// `enabledCookieJar`, `enableJs` and `loadWithBaseUrl` true, `singleUrl` false, `articleStyle`,
/// `lastUpdateTime` and `customOrder` 0), nullable ones without a value left out. Members the entity does not
/// have follow as they were kept, so an edit in the web client's RSS source editor loses none of them.
package enum LegadoRssSource {
    /// The entity's fields in order, with the default Gson writes when there is no value (nil: nullable, left out).
    package static let fields: [(name: String, fallback: JSONValue?)] = [
        ("sourceUrl", .string("")), ("sourceName", .string("")), ("sourceIcon", .string("")), ("sourceGroup", nil),
        ("sourceComment", nil), ("enabled", .bool(true)), ("variableComment", nil), ("jsLib", nil),
        ("enabledCookieJar", .bool(true)), ("concurrentRate", nil), ("header", nil), ("loginUrl", nil), ("loginUi", nil),
        ("loginCheckJs", nil), ("coverDecodeJs", nil), ("sortUrl", nil), ("singleUrl", .bool(false)),
        ("articleStyle", .number("0")), ("ruleArticles", nil), ("ruleNextPage", nil), ("ruleTitle", nil),
        ("rulePubDate", nil), ("ruleDescription", nil), ("ruleImage", nil), ("ruleLink", nil), ("ruleContent", nil),
        ("contentWhitelist", nil), ("contentBlacklist", nil), ("shouldOverrideUrlLoading", nil), ("style", nil),
        ("enableJs", .bool(true)), ("loadWithBaseUrl", .bool(true)), ("injectJs", nil), ("lastUpdateTime", .number("0")),
        ("customOrder", .number("0")),
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

    /// The kept JSON text of an RSS source as the entity; nil when it is not a JSON object.
    package static func entity(json: String) -> JSONValue? {
        (try? JSONParser.parse(json, lenient: true).value.objectValue).map { entity($0) }
    }
}
