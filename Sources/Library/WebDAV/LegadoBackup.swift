import BookRuleJSON
import Foundation

/// What bookrule reads from a Legado backup zip (help/storage/Backup.kt's layout): the shelf, the sources, the
/// replace rules, and the files it does not use, kept as they were so a backup made later writes them back.
public struct LegadoBackup: Sendable {
    /// `bookshelf.json`.
    public var books: [LegadoShelfBook]
    /// `bookSource.json`, each source's JSON object as it was.
    public var sources: [BookSourceRecord]
    /// `rssSources.json`, each RSS source's JSON object as it was (those with a `sourceUrl`).
    public var rssSources: [RssSourceRecord]
    /// `replaceRule.json`, the rules bookrule runs.
    public var replaceRules: [ReplaceRule]
    /// Rules of `replaceRule.json` left out, and why (a JavaScript replacement, a regex that does not compile).
    public var warnings: [String]
    /// The other files of the backup kept unchanged (`bookmark.json`, `readRecord.json`, `bookGroup.json`, …),
    /// by name.
    public var keptFiles: [String: [UInt8]]

    /// The files bookrule reads (and writes in a backup of its own).
    static let readFiles: Set<String> = ["bookshelf.json", "bookSource.json", "replaceRule.json", rssSourcesFile]
    /// The file of RSS sources (订阅源), which the library keeps in its own table since they are run too.
    static let rssSourcesFile = "rssSources.json"
    /// The files kept as they are and written back: Legado's lists bookrule has no use for. `servers.json` and
    /// `config.xml` are not kept: they hold the app's settings with its WebDAV password, encrypted with a key
    /// every copy of the app shares.
    static let keptFileNames: Set<String> = [
        "bookmark.json", "bookGroup.json", "rssStar.json", "readRecord.json", "searchHistory.json",
        "sourceSub.json", "txtTocRule.json", "httpTTS.json", "keyboardAssists.json", "dictRule.json",
    ]

    /// Creates a backup's contents.
    public init(books: [LegadoShelfBook] = [], sources: [BookSourceRecord] = [], rssSources: [RssSourceRecord] = [],
                replaceRules: [ReplaceRule] = [], warnings: [String] = [], keptFiles: [String: [UInt8]] = [:]) {
        self.books = books
        self.sources = sources
        self.rssSources = rssSources
        self.replaceRules = replaceRules
        self.warnings = warnings
        self.keptFiles = keptFiles
    }

    /// Reads the backup zip `zip`.
    /// - Throws: `LegadoBackupError` for a zip that is not one, exceeds the limits, or holds none of Legado's
    ///   files, or a file that is not the JSON list Legado writes.
    public init(zip: [UInt8]) throws(LegadoBackupError) {
        var names: [String] = []
        let entries = try LegadoZip.entries(of: zip) { name in
            names.append(name)
            return Self.readFiles.contains(name) || Self.keptFileNames.contains(name)
        }
        guard entries.keys.contains(where: Self.readFiles.contains) else { throw .notALegadoBackup(found: names) }
        var books: [LegadoShelfBook] = []
        for object in try Self.objects(entries["bookshelf.json"], file: "bookshelf.json") {
            if let book = LegadoShelfBook(entity: object) { books.append(book) }
        }
        var sources: [BookSourceRecord] = []
        for object in try Self.objects(entries["bookSource.json"], file: "bookSource.json") {
            guard let url = object["bookSourceUrl"]?.value.stringValue, !url.isEmpty else { continue }
            let name = object["bookSourceName"]?.value.stringValue ?? url
            sources.append(BookSourceRecord(sourceURL: url, sourceName: name, json: JSONValue.object(object).serialized()))
        }
        let rssSources = try Self.rssSources(in: entries[Self.rssSourcesFile], file: Self.rssSourcesFile)
        var rules: [ReplaceRule] = []
        var warnings: [String] = []
        if let bytes = entries["replaceRule.json"] {
            // The same reading as `bookrule rules import`: a temporary file through ReplaceRuleSet.parse.
            let path = NSTemporaryDirectory() + "bookrule-replace-\(UUID().uuidString).json"
            defer { unlink(path) }
            do {
                try LocalFile.writeAtomically(bytes, to: path)
                let parsed = try ReplaceRuleSet.parse(file: path)
                rules = parsed.rules
                warnings = parsed.warnings.map { $0.replacingOccurrences(of: path, with: "replaceRule.json") }
            } catch let failure as ReplaceRuleError {
                throw .invalidReplaceRule(failure.description.replacingOccurrences(of: path, with: "replaceRule.json"))
            } catch {
                throw .invalidReplaceRule("\(error)")
            }
        }
        var kept: [String: [UInt8]] = [:]
        for (name, bytes) in entries where Self.keptFileNames.contains(name) { kept[name] = bytes }
        self.init(books: books, sources: sources, rssSources: rssSources, replaceRules: rules, warnings: warnings, keptFiles: kept)
    }

    /// The RSS sources of the JSON list `bytes`, as Legado's `RssSource` (keyed by `sourceUrl`; an entry without
    /// one is left out, a later entry of the same URL wins, as Room's insert-or-replace does).
    static func rssSources(in bytes: [UInt8]?, file: String) throws(LegadoBackupError) -> [RssSourceRecord] {
        var order: [String] = []
        var byURL: [String: RssSourceRecord] = [:]
        for object in try objects(bytes, file: file) {
            guard let url = object["sourceUrl"]?.value.stringValue, !url.isEmpty else { continue }
            let name = object["sourceName"]?.value.stringValue ?? url
            if byURL[url] == nil { order.append(url) }
            byURL[url] = RssSourceRecord(sourceURL: url, sourceName: name, json: JSONValue.object(object).serialized())
        }
        return order.compactMap { byURL[$0] }
    }

    /// The objects of the JSON list `bytes` (none when the file is absent).
    private static func objects(_ bytes: [UInt8]?, file: String) throws(LegadoBackupError) -> [JSONObject] {
        guard let bytes else { return [] }
        let root: JSONNode
        do throws(JSONSyntaxError) {
            root = try JSONParser.parse(bytes, lenient: true)
        } catch {
            throw .malformedJSON(file: file, location: error.location.description, message: error.message)
        }
        guard let elements = root.value.arrayValue else { throw .notAList(file: file, found: root.value.typeName) }
        var objects: [JSONObject] = []
        for element in elements {
            guard let object = element.value.objectValue else { throw .notAList(file: file, found: "a list holding \(element.value.typeName)") }
            objects.append(object)
        }
        return objects
    }
}
