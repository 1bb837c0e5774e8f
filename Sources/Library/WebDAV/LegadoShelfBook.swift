import BookRuleJSON
import Foundation

/// A book of a Legado backup's `bookshelf.json` (Legado's `Book` entity): what bookrule keeps of it.
public struct LegadoShelfBook: Sendable, Equatable {
    /// `bookUrl`: the book page, its identity in Legado and in the library (with its source).
    public var url: String
    /// `tocUrl`.
    public var tocURL: String
    /// `origin`: the source's `bookSourceUrl` (`loc_book` for a book from a local file).
    public var sourceURL: String
    /// `name`.
    public var name: String
    /// `author`.
    public var author: String
    /// `intro`.
    public var intro: String
    /// `kind`.
    public var kind: String
    /// `coverUrl`.
    public var coverURL: String
    /// `variable`, a JSON object of strings in a string.
    public var variables: [String: String]
    /// `durChapterIndex`, `durChapterPos`, `durChapterTitle`, `durChapterTime`; nil when the book was never
    /// opened (index and position 0 and no title).
    public var progress: ReadingProgress?
    /// The app's settings of the book that the library does not hold (`group`, `customCoverUrl`, `readConfig`…,
    /// `LegadoBookSettings.keys`), kept to be written back.
    public var appSettings: JSONObject = JSONObject()

    /// Creates a book.
    public init(url: String, tocURL: String, sourceURL: String, name: String, author: String, intro: String = "",
                kind: String = "", coverURL: String = "", variables: [String: String] = [:], progress: ReadingProgress? = nil) {
        self.url = url
        self.tocURL = tocURL
        self.sourceURL = sourceURL
        self.name = name
        self.author = author
        self.intro = intro
        self.kind = kind
        self.coverURL = coverURL
        self.variables = variables
        self.progress = progress
    }

    /// The book an entity object describes; nil when it has no `bookUrl` or `name`.
    init?(entity object: JSONObject) {
        func text(_ key: String) -> String {
            switch object[key]?.value ?? .null {
            case .string(let value): return value
            case .number(let literal): return literal
            default: return ""
            }
        }
        let url = text("bookUrl")
        let name = text("name")
        guard !url.isEmpty, !name.isEmpty else { return nil }
        var variables: [String: String] = [:]
        if case .string(let json) = object["variable"]?.value ?? .null, json.utf8.count <= 1 << 20,
           let parsed = try? JSONParser.parse(json, lenient: true), let members = parsed.value.objectValue {
            for (key, node) in members.members {
                if let value = node.value.stringValue { variables[key] = value }
            }
        }
        let index = object["durChapterIndex"]?.value.intValue ?? 0
        let position = object["durChapterPos"]?.value.intValue ?? 0
        let title = text("durChapterTitle")
        let time = object["durChapterTime"]?.value.intValue ?? 0
        let progress = (index > 0 || position > 0 || !title.isEmpty) && index >= 0 && position >= 0
            ? ReadingProgress(chapterIndex: index, chapterPosition: position, chapterTitle: title,
                              readAt: Date(timeIntervalSince1970: Double(max(0, time)) / 1000))
            : nil
        self.init(url: url, tocURL: text("tocUrl").isEmpty ? url : text("tocUrl"), sourceURL: text("origin"),
                  name: name, author: text("author"), intro: text("intro"), kind: text("kind"),
                  coverURL: text("coverUrl"), variables: variables, progress: progress)
        appSettings = LegadoBookSettings.settings(of: object)
    }
}
