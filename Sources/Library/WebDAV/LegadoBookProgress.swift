import BookRuleJSON
import Foundation

/// One book's reading progress as Legado keeps it on WebDAV: `bookProgress/<name>_<author>.json`, a
/// `BookProgress` {name, author, durChapterIndex, durChapterPos, durChapterTime, durChapterTitle} as Gson
/// writes it (data/entities/BookProgress.kt, help/AppWebDav.kt).
public struct LegadoBookProgress: Sendable, Equatable {
    /// The book's title.
    public var name: String
    /// The book's author.
    public var author: String
    /// Where the reader is.
    public var progress: ReadingProgress

    /// Creates a record.
    public init(name: String, author: String, progress: ReadingProgress) {
        self.name = name
        self.author = author
        self.progress = progress
    }

    /// The file's name on the server, decoded: `<name>_<author>` with `\ / : * ? " < > |` made `_` (Legado's
    /// `normalizeFileName`), then `.json`. Legado also applies `UrlUtil.replaceReservedChar` before putting it
    /// in the URL: that is percent-encoding, which `WebDAVClient` does, so the server stores this same name.
    public static func fileName(name: String, author: String) -> String {
        let unsafe: Set<Character> = ["\\", "/", ":", "*", "?", "\"", "<", ">", "|"]
        return String("\(name)_\(author)".map { unsafe.contains($0) ? "_" : $0 }) + ".json"
    }

    /// The file's name for this book.
    public var fileName: String { Self.fileName(name: name, author: author) }

    /// Whether `self` is further than `other` by Legado's rule: a greater chapter index, or the same index and
    /// a greater position in it.
    public func isFurther(than other: ReadingProgress?) -> Bool {
        guard let other else { return true }
        return Self.isFurther(progress, than: other)
    }

    /// Legado's rule for two progress records.
    public static func isFurther(_ candidate: ReadingProgress, than other: ReadingProgress) -> Bool {
        candidate.chapterIndex > other.chapterIndex
            || (candidate.chapterIndex == other.chapterIndex && candidate.chapterPosition > other.chapterPosition)
    }

    /// The JSON Legado writes (members in the entity's order; no `durChapterTitle` when there is none).
    public var json: [UInt8] {
        JSONWriter.bytes(LegadoJSON.object([
            ("name", .string(name)),
            ("author", .string(author)),
            ("durChapterIndex", LegadoJSON.number(progress.chapterIndex)),
            ("durChapterPos", LegadoJSON.number(progress.chapterPosition)),
            ("durChapterTime", LegadoJSON.number(LibraryStore.milliseconds(progress.readAt))),
            ("durChapterTitle", LegadoJSON.optional(progress.chapterTitle)),
        ]))
    }

    /// Largest progress file read.
    static let maxBytes = 64 * 1024

    /// The record in a progress file's bytes, nil when they are not one (Legado also ignores such a file).
    public init?(json bytes: [UInt8]) {
        guard bytes.count <= Self.maxBytes, let root = try? JSONParser.parse(bytes, lenient: true),
              let object = root.value.objectValue,
              let name = object["name"]?.value.stringValue, let author = object["author"]?.value.stringValue
        else { return nil }
        let index = object["durChapterIndex"]?.value.intValue ?? 0
        let position = object["durChapterPos"]?.value.intValue ?? 0
        guard index >= 0, position >= 0 else { return nil }
        let time = object["durChapterTime"]?.value.intValue ?? 0
        self.init(name: name, author: author, progress: ReadingProgress(
            chapterIndex: index, chapterPosition: position,
            chapterTitle: object["durChapterTitle"]?.value.stringValue ?? "",
            readAt: Date(timeIntervalSince1970: Double(time) / 1000)))
    }
}
