import BookRuleJSON
import BookRuleLibrary

/// A library chapter as Legado's `BookChapter` entity, the way Gson writes it.
struct LegadoChapter {
    let chapter: StoredChapter
    let bookURL: String
    /// What the chapter's relative URL was read against (Legado's `baseUrl`): the book's TOC page.
    let baseURL: String

    var json: JSONValue {
        LegadoJSON.object([
            ("url", .string(chapter.url)),
            ("title", .string(chapter.title)),
            ("isVolume", .bool(chapter.isVolume)),
            ("baseUrl", .string(baseURL)),
            ("bookUrl", .string(bookURL)),
            ("index", LegadoJSON.number(chapter.position)),
            ("isVip", .bool(false)),
            ("isPay", .bool(false)),
        ])
    }
}
