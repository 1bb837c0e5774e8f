import BookRuleJSON
import Foundation

/// The app's per-book settings that bookrule's library does not hold (the shelf group, a custom cover, intro
/// or tag, the charset, the update switch, the shelf order, the reading configuration), kept from a restore
/// beside the library (`legado-backup/bookshelf-settings.json`, by book URL) and put back into the books of
/// the next backup, so a book goes back to the app as it came.
enum LegadoBookSettings {
    /// The `Book` entity's fields kept.
    static let keys: Set<String> = [
        "customTag", "customCoverUrl", "customIntro", "charset", "group", "canUpdate", "order", "originOrder",
        "readConfig", "wordCount",
    ]
    /// The file's name in the kept folder.
    static let fileName = "bookshelf-settings.json"
    /// Largest file read back.
    static let maxBytes = 32 << 20

    /// The kept fields of a `Book` entity object.
    static func settings(of object: JSONObject) -> JSONObject {
        JSONObject(members: object.members.filter { keys.contains($0.key) && $0.value.value != .null })
    }

    /// The settings kept in `folder`, by book URL; none when there is no such file or it cannot be read.
    static func load(from folder: String) -> [String: JSONObject] {
        guard let bytes = try? LocalFile.readRegularFile(folder + "/" + fileName, limit: maxBytes),
              let root = try? JSONParser.parse(bytes), let object = root.value.objectValue else { return [:] }
        var settings: [String: JSONObject] = [:]
        for (url, node) in object.members {
            if let fields = node.value.objectValue { settings[url] = fields }
        }
        return settings
    }

    /// `kept` with the settings of `books` replacing those of the same URLs, as the file's bytes.
    static func merged(_ kept: [String: JSONObject], with books: [LegadoShelfBook]) -> [UInt8] {
        var all = kept
        for book in books where !book.appSettings.members.isEmpty { all[book.url] = book.appSettings }
        return JSONWriter.bytes(LegadoJSON.object(all.keys.sorted().map { url in (url, all[url].map { JSONValue.object($0) }) }))
    }

    /// The entity `entity` (a `Book` object) with the kept `settings` in place of its own values of those fields.
    static func applied(_ settings: JSONObject?, to entity: JSONValue) -> JSONValue {
        guard let settings, !settings.members.isEmpty, var object = entity.objectValue else { return entity }
        var given = Set<String>()
        for index in object.members.indices {
            let key = object.members[index].key
            if let value = settings[key], keys.contains(key) {
                object.members[index].value = value
                given.insert(key)
            }
        }
        for member in settings.members where keys.contains(member.key) && !given.contains(member.key) {
            object.members.append(member)
            given.insert(member.key)
        }
        return .object(object)
    }
}
