import BookRuleEngine
import BookRuleJSON
import Foundation

/// A search or explore result as Legado's `SearchBook` entity, the way Gson writes it (what `saveBook` takes
/// back to add the book).
struct LegadoSearchBook: Sendable {
    let result: SearchResult
    let sourceURL: String
    let sourceName: String
    let sourceType: Int
    /// The result's place among those answered, as Legado's `originOrder`.
    let order: Int

    var json: JSONValue {
        let variables = result.variables.isEmpty ? nil : try? JSONWriter.string(result.variables)
        return LegadoJSON.object([
            ("bookUrl", .string(result.bookURL)),
            ("origin", .string(sourceURL)),
            ("originName", .string(sourceName)),
            ("type", LegadoJSON.number(LegadoBook.bookType(sourceType: sourceType))),
            ("name", .string(result.name)),
            ("author", .string(result.author)),
            ("kind", LegadoJSON.optional(result.kind)),
            ("coverUrl", LegadoJSON.optional(result.coverURL)),
            ("intro", LegadoJSON.optional(result.intro)),
            ("wordCount", LegadoJSON.optional(result.wordCount)),
            ("latestChapterTitle", LegadoJSON.optional(result.lastChapter)),
            ("tocUrl", .string("")),
            ("time", LegadoJSON.number(LegadoBook.milliseconds(Date()))),
            ("variable", LegadoJSON.optional(variables)),
            ("originOrder", LegadoJSON.number(order)),
        ])
    }
}
