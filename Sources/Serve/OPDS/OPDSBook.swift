import BookRuleLibrary
import Foundation

/// A book of the shelf as the catalog lists it: the stored book with when it was last saved and read, and
/// its entry (title, author, a `urn:` id that never changes, intro, kinds, cover, files).
struct OPDSBook: Sendable {
    /// The book as the library holds it (with its chapter counts).
    var book: StoredBook
    /// When anything of it was last saved (its newest chapter).
    var lastSaved: Date
    /// When it was last read in a client, nil when never.
    var readAt: Date?

    /// The entry's id: the library's id for the book, which an update, a source switch or a new chapter never
    /// changes and no other book is ever given.
    static func id(_ bookID: Int64) -> String { "urn:bookrule:book:\(bookID)" }

    /// The path of the book's pages under the catalog.
    static func path(_ bookID: Int64) -> String { "/opds/books/\(bookID)" }

    /// The book's kinds, from its comma-separated `kind` (ASCII or full-width commas), each once.
    var categories: [String] {
        var seen = Set<String>()
        return book.kind.split(whereSeparator: { $0 == "," || $0 == "，" || $0 == "\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// Chapters not saved yet (those the site lists and the library has no text of).
    var unsavedChapters: Int { max(0, book.chapterCount - book.doneCount) }

    /// The summary: the intro, and, when chapters are not saved yet, that the files hold only the saved ones.
    var summary: String {
        var text = book.intro.trimmingCharacters(in: .whitespacesAndNewlines)
        if book.doneCount == 0 {
            text += (text.isEmpty ? "" : "\n\n") + "No chapter is saved yet: the EPUB and TXT come once one is."
        } else if unsavedChapters > 0 {
            text += (text.isEmpty ? "" : "\n\n")
                + "\(book.doneCount) of \(book.chapterCount) chapters are saved; the EPUB and TXT hold those, "
                + "and grow as the others are saved."
        }
        return text
    }

    /// The book's acquisition entry; its cover links when `store` keeps a whole picture as its cover.
    func entry(store: LibraryStore) -> OPDSEntry {
        let path = Self.path(book.id)
        var links = [OPDSLink(rel: "alternate", href: path, type: OPDSMediaType.entry, title: "The whole entry")]
        if let coverType = OPDSShelf.coverType(at: store.coverPath(bookID: book.id)) {
            links.append(OPDSLink(rel: OPDSMediaType.imageRelation, href: path + "/cover", type: coverType))
            links.append(OPDSLink(rel: OPDSMediaType.thumbnailRelation, href: path + "/thumbnail", type: "image/png"))
        }
        links.append(OPDSLink(rel: OPDSMediaType.acquisitionRelation, href: path + ".epub", type: OPDSMediaType.epub,
                              title: "EPUB"))
        links.append(OPDSLink(rel: OPDSMediaType.acquisitionRelation, href: path + ".txt", type: OPDSMediaType.text,
                              title: "TXT"))
        return OPDSEntry(id: Self.id(book.id), title: book.name, updated: lastSaved, authors: [book.author],
                         summary: summary, categories: categories, links: links)
    }
}
