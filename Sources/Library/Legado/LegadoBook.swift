import BookRuleJSON
import Foundation

/// A library book as Legado's `Book` entity, the way Gson writes it: the fields in the entity's order, each with
/// its JSON type (`durChapterIndex` a number, `canUpdate` a Boolean), fields with no value left out.
package struct LegadoBook {
    /// The book.
    package let book: StoredBook
    /// Where the reader is in it, if anywhere.
    package let progress: ReadingProgress?
    /// The chapters listed in the TOC, volume headings included (Legado's `totalChapterNum` counts them, and its
    /// `durChapterIndex` indexes them).
    package let tocLength: Int
    /// The TOC's last chapter's title.
    package let latestChapterTitle: String?
    /// Legado's `BookType` bits for the source's type.
    package let type: Int

    /// Legado's `BookType` bit for a source type (`bookSourceType` 0 text, 1 audio, 2 image, 3 file).
    package static func bookType(sourceType: Int) -> Int {
        switch sourceType {
        case 1: return 0b10_0000
        case 2: return 0b100_0000
        case 3: return 0b1000_1000  // a file source's books: text | webFile
        default: return 0b1000
        }
    }

    /// Creates the entity of `book`.
    package init(book: StoredBook, progress: ReadingProgress?, tocLength: Int, latestChapterTitle: String?, type: Int) {
        self.book = book
        self.progress = progress
        self.tocLength = tocLength
        self.latestChapterTitle = latestChapterTitle
        self.type = type
    }

    /// The entity as Gson writes it.
    package var json: JSONValue {
        let variables = book.variables.isEmpty ? nil : try? JSONWriter.string(book.variables)
        let updated = LibraryStore.milliseconds(book.updatedAt)
        return LegadoJSON.object([
            ("bookUrl", .string(book.url)),
            ("tocUrl", .string(book.tocURL)),
            ("origin", .string(book.sourceURL)),
            ("originName", .string(book.sourceName)),
            ("name", .string(book.name)),
            ("author", .string(book.author)),
            ("kind", LegadoJSON.optional(book.kind)),
            ("coverUrl", LegadoJSON.optional(book.coverURL)),
            ("intro", LegadoJSON.optional(book.intro)),
            ("type", LegadoJSON.number(type)),
            ("group", LegadoJSON.number(0)),
            ("latestChapterTitle", LegadoJSON.optional(latestChapterTitle)),
            ("latestChapterTime", LegadoJSON.number(updated)),
            ("lastCheckTime", LegadoJSON.number(updated)),
            ("lastCheckCount", LegadoJSON.number(0)),
            ("totalChapterNum", LegadoJSON.number(tocLength)),
            ("durChapterTitle", LegadoJSON.optional(progress?.chapterTitle)),
            ("durChapterIndex", LegadoJSON.number(progress?.chapterIndex ?? 0)),
            ("durChapterPos", LegadoJSON.number(progress?.chapterPosition ?? 0)),
            ("durChapterTime", LegadoJSON.number(LibraryStore.milliseconds(progress?.readAt ?? book.createdAt))),
            ("canUpdate", .bool(true)),
            ("order", LegadoJSON.number(0)),
            ("originOrder", LegadoJSON.number(0)),
            ("variable", LegadoJSON.optional(variables)),
            ("syncTime", LegadoJSON.number(0)),
        ])
    }
}
