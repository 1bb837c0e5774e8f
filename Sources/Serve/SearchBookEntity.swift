import BookRuleEngine
import BookRuleJSON

/// One search result as Legado's web client reads it: its `SearchBook` entity with the field names and JSON
/// types Gson writes (numbers as numbers; a field Legado leaves null, such as a missing cover, left out).
struct SearchBookEntity: Codable, Sendable, Equatable {
    var bookUrl: String
    var origin: String
    var originName: String
    /// Legado's `BookType` bits: text 8, audio 32, image 64, a file source text|webFile (136).
    var type: Int
    var name: String
    var author: String
    var kind: String?
    var coverUrl: String?
    var intro: String?
    var wordCount: String?
    var latestChapterTitle: String?
    var tocUrl: String
    /// When the result was read, in milliseconds since 1970.
    var time: Int64
    /// The `@put` variables as a JSON object in a string, as Legado keeps them.
    var variable: String?
    /// The source's `customOrder`.
    var originOrder: Int
    var chapterWordCount: Int
    var respondTime: Int

    /// The entity for `result`, found by `source` `milliseconds` after the search started.
    init(_ result: SearchResult, source: BookSource, time: Int64, respondTime: Int) {
        bookUrl = result.bookURL
        origin = source.url
        originName = source.name
        type = Self.bookType(source.type)
        name = result.name
        author = result.author
        kind = result.kind.isEmpty ? nil : result.kind
        coverUrl = result.coverURL.isEmpty ? nil : result.coverURL
        intro = result.intro
        wordCount = result.wordCount
        latestChapterTitle = result.lastChapter
        tocUrl = ""
        self.time = time
        variable = result.variables.isEmpty ? nil : (try? JSONWriter.string(result.variables))
        originOrder = source.json["customOrder"]?.value.intValue ?? 0
        chapterWordCount = -1
        self.respondTime = respondTime
    }

    /// Legado's `BookType` for a source's `bookSourceType`.
    static func bookType(_ type: BookSourceType) -> Int {
        switch type {
        case .text: 0b1000
        case .audio: 0b10_0000
        case .image: 0b100_0000
        case .file: 0b1000 | 0b1000_0000
        }
    }
}
