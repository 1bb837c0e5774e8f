import BookRuleEngine
import BookRuleJSON
import BookRuleLibrary
import Foundation

/// A search or explore result as Legado's `SearchBook` entity, the way Gson writes it: numbers as numbers, a
/// field Legado leaves null (a missing cover or kind) left out; the texts a search rule reads always there. What `searchBook` sends, what reader's `/reader3/` calls
/// answer, and what `saveBook` takes back to add the book; the client tells one from a shelf `Book` by its
/// `respondTime`.
struct LegadoSearchBook: Sendable {
    let result: SearchResult
    let source: BookSource
    /// When the result was read, in milliseconds since 1970.
    let time: Int64
    /// How long the source took to answer, in milliseconds.
    let respondTime: Int

    init(result: SearchResult, source: BookSource, time: Int64 = LibraryStore.milliseconds(Date()), respondTime: Int = 0) {
        self.result = result
        self.source = source
        self.time = time
        self.respondTime = respondTime
    }

    var json: JSONValue {
        let variables = result.variables.isEmpty ? nil : try? JSONWriter.string(result.variables)
        return LegadoJSON.object([
            ("bookUrl", .string(result.bookURL)),
            ("origin", .string(source.url)),
            ("originName", .string(source.name)),
            ("type", LegadoJSON.number(LegadoBook.bookType(sourceType: source.type.rawValue))),
            ("name", .string(result.name)),
            ("author", .string(result.author)),
            ("kind", LegadoJSON.optional(result.kind)),
            ("coverUrl", LegadoJSON.optional(result.coverURL)),
            ("intro", .string(result.intro)),
            ("wordCount", .string(result.wordCount)),
            ("latestChapterTitle", .string(result.lastChapter)),
            ("tocUrl", .string("")),
            ("time", LegadoJSON.number(time)),
            ("variable", LegadoJSON.optional(variables)),
            // Legado's originOrder is the source's customOrder.
            ("originOrder", LegadoJSON.number(source.json["customOrder"]?.value.intValue ?? 0)),
            ("chapterWordCount", LegadoJSON.number(-1)),
            ("respondTime", LegadoJSON.number(respondTime)),
        ])
    }
}
