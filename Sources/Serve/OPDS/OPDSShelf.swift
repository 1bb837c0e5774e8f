import BookRuleLibrary
import BookRuleJSON
import Foundation

/// The shelf's books as the catalog's feeds list them: all of them with when each was saved and read, and the
/// orders and selections of the feeds (recently read, recently updated, a kind, a search, all by name).
struct OPDSShelf: Sendable {
    /// Every book.
    var books: [OPDSBook]

    /// Reads every book of `store` with its progress and last save.
    init(store: LibraryStore) throws(OPDSError) {
        do {
            let progress = try store.readingProgress()
            books = try store.books().map { (book) throws(LibraryError) in
                OPDSBook(book: book, lastSaved: try store.lastSaved(book), readAt: progress[book.id]?.readAt)
            }
        } catch {
            throw .library("\(error)")
        }
    }

    /// The media type of the cover file at `path` when it is a whole JPEG, PNG or GIF (as the EPUB would take
    /// it); nil otherwise. Read for the entries of one page only, not for the whole shelf.
    static func coverType(at path: String) -> String? {
        guard let bytes = try? LocalFile.readRegularFile(path, limit: OPDSShelf.coverLimit) else { return nil }
        return ExportCover(bytes: bytes).epubMediaType
    }

    /// The largest cover file served (a cover is tens of kilobytes).
    static let coverLimit = 16 * 1024 * 1024

    /// Books read in a client, the most recent first.
    var recentlyRead: [OPDSBook] {
        books.filter { $0.readAt != nil }.sorted { ($0.readAt ?? .distantPast, $0.book.id) > ($1.readAt ?? .distantPast, $1.book.id) }
    }

    /// Every book, the most recently saved first.
    var recentlyUpdated: [OPDSBook] {
        books.sorted { ($0.lastSaved, $0.book.id) > ($1.lastSaved, $1.book.id) }
    }

    /// Every book by name (then author, then id).
    var byName: [OPDSBook] {
        books.sorted { ($0.book.name, $0.book.author, $0.book.id) < ($1.book.name, $1.book.author, $1.book.id) }
    }

    /// Every kind the books have, with how many books have it, by name.
    var kinds: [(name: String, count: Int)] {
        var counts: [String: Int] = [:]
        for book in books {
            for kind in book.categories { counts[kind, default: 0] += 1 }
        }
        return counts.sorted { $0.key < $1.key }.map { (name: $0.key, count: $0.value) }
    }

    /// The books of kind `name`, by name.
    func books(ofKind name: String) -> [OPDSBook] {
        byName.filter { $0.categories.contains(name) }
    }

    /// The books whose name or author contains every word of `query` (ignoring case and width), by name.
    func search(_ query: String) -> [OPDSBook] {
        let words = query.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return [] }
        return byName.filter { book in
            words.allSatisfy { word in
                [book.book.name, book.book.author].contains {
                    $0.range(of: word, options: [.caseInsensitive, .widthInsensitive]) != nil
                }
            }
        }
    }
}
