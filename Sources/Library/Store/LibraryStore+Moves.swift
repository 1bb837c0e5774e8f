import Foundation
import BookRuleDocument
import BookRuleJSON

/// What `LibraryStore.moveHost` did.
public struct HostMoveResult: Sendable {
    /// The books that took new URLs, by id.
    public var bookIDs: [Int64]
    /// Chapter URLs rewritten.
    public var chapters: Int
    /// Saved chapters among them: they keep their text.
    public var textsKept: Int
    /// Sources whose JSON named the old host, each with the `bookSourceUrl` it has now (the same when the
    /// `bookSourceUrl` itself was not on the old host).
    public var sources: [(old: String, new: String)]
}

/// A source file recognised as a library source whose site moved (`LibraryStore.movedSource(for:)`).
public struct MovedSource: Sendable, Equatable {
    /// The library's source (`bookSourceUrl`).
    public var storedURL: String
    /// Its name.
    public var name: String
    /// The host it moved from and to.
    public var move: HostMove
    /// The books that know it (current or other source).
    public var bookIDs: [Int64]
}

extension LibraryStore {
    // MARK: - Sites that move

    /// Moves the books `bookIDs` (nil: every book with a URL on the old host) from `move.old` to `move.new`,
    /// in one transaction: the book, TOC and cover URLs, every chapter URL (and the key it is found by), the
    /// book URLs of its known sources, and the JSON of its sources that name the old host (a source whose
    /// `bookSourceUrl` is on the old host is kept under the moved `bookSourceUrl`, the books and texts it gave
    /// pointing at it; the old entry stays for books not moved). Saved chapters keep their state and text.
    /// - Throws: `LibraryError.bookOnSourceExists` when another book is already the moved book's copy there.
    /// With `replacing`, the library source `replacing.url` becomes `replacing.source` (a source file recognised
    /// as it, moved: `movedSource(for:)`), whose `bookSourceUrl` may have stayed, instead of its JSON rewritten.
    @discardableResult
    public func moveHost(_ move: HostMove, bookIDs: [Int64]? = nil,
                         replacing: (url: String, source: BookSourceRecord)? = nil) throws(LibraryError) -> HostMoveResult {
        let purpose = "moving books from \(move.old) to \(move.new)"
        return try database.transaction(purpose) { (connection) throws(LibraryError) in
            let books = try Self.books(connection, where: "1", bindings: [], purpose: purpose)
            let known = try connection.query("SELECT book_id, source_url, book_url FROM book_sources ORDER BY book_id, source_url",
                                             purpose: purpose) { (row) throws(LibraryError) in
                (book: row.int64(0), source: row.text(1), url: row.text(2))
            }
            let sources = try connection.query("SELECT url, name, json FROM sources", purpose: purpose) {
                (row) throws(LibraryError) in (url: row.text(0), name: row.text(1), json: row.text(2))
            }
            if let bookIDs {
                for id in bookIDs where !books.contains(where: { $0.id == id }) { throw .unknownBook(id: id) }
            }
            let chosen = books.filter { book in
                if let bookIDs { return bookIDs.contains(book.id) }
                return [book.url, book.tocURL, book.coverURL].contains { move.moved($0) != nil }
                    || known.contains { $0.book == book.id && move.moved($0.url) != nil }
            }
            var result = HostMoveResult(bookIDs: chosen.map(\.id), chapters: 0, textsKept: 0, sources: [])

            // Sources of these books that name the old host, moved first so the books can point at them.
            let referenced = Set(chosen.map(\.sourceURL) + known.filter { row in chosen.contains { $0.id == row.book } }.map(\.source))
            var renamed: [String: String] = [:]
            for source in sources where referenced.contains(source.url) {
                var record = BookSourceRecord(sourceURL: move.moved(source.url) ?? source.url, sourceName: source.name,
                                              json: move.rewritten(source.json))
                if let replacing, replacing.url == source.url { record = replacing.source }
                guard record.json != source.json else { continue }
                let url = record.sourceURL
                try Self.saveSource(record, stamp: Self.milliseconds(now()), connection)
                result.sources.append((source.url, url))
                if url != source.url { renamed[source.url] = url }
            }

            let updateBook = try connection.prepare("""
                UPDATE books SET source_url = ?2, url = ?3, toc_url = ?4, cover_url = ?5, updated_at = ?6 WHERE id = ?1
                """, purpose: purpose)
            let stamp = Self.milliseconds(now())
            for book in chosen {
                let source = renamed[book.sourceURL] ?? book.sourceURL
                let url = move.moved(book.url) ?? book.url
                let other = try connection.query("SELECT id FROM books WHERE source_url = ?1 AND url = ?2 AND id <> ?3",
                                                 purpose: purpose, bindings: [source, url, book.id]) {
                    (row) throws(LibraryError) in row.int64(0)
                }
                if let other = other.first { throw .bookOnSourceExists(bookID: book.id, otherBookID: other, sourceURL: source) }
                try updateBook.run([book.id, source, url, move.moved(book.tocURL) ?? book.tocURL,
                                    move.moved(book.coverURL) ?? book.coverURL, stamp])
                try Self.moveKnownSources(of: book.id, rows: known.filter { $0.book == book.id }, move: move,
                                          renamed: renamed, connection)
                let (chapters, kept) = try Self.moveChapters(of: book.id, move: move, renamed: renamed, connection)
                result.chapters += chapters
                result.textsKept += kept
            }
            return result
        }
    }

    private static func moveKnownSources(
        of bookID: Int64, rows: [(book: Int64, source: String, url: String)], move: HostMove, renamed: [String: String],
        _ connection: borrowing SQLiteConnection
    ) throws(LibraryError) {
        let purpose = "moving the known sources of book \(bookID)"
        for row in rows {
            let source = renamed[row.source] ?? row.source
            let url = move.moved(row.url) ?? row.url
            guard source != row.source || url != row.url else { continue }
            if source != row.source {
                // The moved source may be known already (recorded from the new file): the moved row wins.
                try connection.run("DELETE FROM book_sources WHERE book_id = ?1 AND source_url = ?2",
                                   purpose: purpose, bindings: [bookID, source])
            }
            try connection.run("UPDATE book_sources SET source_url = ?3, book_url = ?4 WHERE book_id = ?1 AND source_url = ?2",
                               purpose: purpose, bindings: [bookID, row.source, source, url])
        }
    }

    /// Rewrites the chapter URLs (and keys) of book `bookID` on the old host; returns how many, and how many
    /// of them hold saved text.
    private static func moveChapters(of bookID: Int64, move: HostMove, renamed: [String: String],
                                     _ connection: borrowing SQLiteConnection) throws(LibraryError) -> (Int, Int) {
        let purpose = "moving the chapters of book \(bookID)"
        for (old, new) in renamed {
            try connection.run("UPDATE chapters SET source_url = ?3 WHERE book_id = ?1 AND source_url = ?2",
                               purpose: purpose, bindings: [bookID, old, new])
        }
        let rows = try connection.query("SELECT id, key, url, state = 'done' FROM chapters WHERE book_id = ?1",
                                        purpose: purpose, bindings: [bookID]) { (row) throws(LibraryError) in
            (id: row.int64(0), key: row.text(1), url: row.text(2), done: row.int64(3) != 0)
        }
        let moving = rows.compactMap { row in move.moved(row.url).map { (row: row, url: $0) } }
        // Keys are unique per book: park the moving rows first, so the new keys can be given in any order.
        let park = try connection.prepare("UPDATE chapters SET key = 'moving:' || id WHERE id = ?1", purpose: purpose)
        for (row, _) in moving { try park.run([row.id]) }
        let update = try connection.prepare("UPDATE chapters SET key = ?2, url = ?3 WHERE id = ?1", purpose: purpose)
        for (row, url) in moving {
            // A heading keeps its key; a chapter's key is its URL.
            let key = row.key.hasPrefix("heading:") || row.key.hasPrefix("unlisted:") || row.key.hasPrefix("volume:")
                ? row.key : canonicalURL(url)
            try update.run([row.id, key, url])
        }
        return (moving.count, moving.filter(\.row.done).count)
    }

    /// The library source `record` (a source file given to a command) is, moved to another host: a source of
    /// the same name whose JSON, with the one origin it names that `record` does not replaced by the one
    /// `record` names that it does not, is `record`'s JSON exactly, the `bookSourceUrl` aside: it may have
    /// moved with the rest or stayed (Legado keys sources by it, so an author may keep the old one). Nil when
    /// there is none, or no book knows it.
    public func movedSource(for record: BookSourceRecord) throws(LibraryError) -> MovedSource? {
        try database.withConnection { (connection) throws(LibraryError) in
            let sources = try connection.query("SELECT url, name, json FROM sources WHERE name = ?1 AND json <> ?2",
                                               purpose: "looking for a moved source", bindings: [record.sourceName, record.json]) {
                (row) throws(LibraryError) in (url: row.text(0), name: row.text(1), json: row.text(2))
            }
            let givenJSON = Self.masked(record.json, sourceURL: record.sourceURL)
            for source in sources {
                let storedJSON = Self.masked(source.json, sourceURL: source.url)
                // The hosts that differ: with the bookSourceUrl when it moved too, without it when it stayed.
                let differences = [(source.json, record.json), (storedJSON, givenJSON)].map { stored, given in
                    (gone: HostMove.origins(in: stored).subtracting(HostMove.origins(in: given)),
                     came: HostMove.origins(in: given).subtracting(HostMove.origins(in: stored)))
                }
                guard let (gone, came) = differences.first(where: { $0.gone.count == 1 && $0.came.count == 1 }),
                      let old = gone.first, let new = came.first else { continue }
                let move = HostMove(from: old, to: new)
                guard move.rewritten(storedJSON) == givenJSON,
                      record.sourceURL == source.url || record.sourceURL == move.moved(source.url) else { continue }
                let books = try connection.query("SELECT DISTINCT book_id FROM book_sources WHERE source_url = ?1 ORDER BY book_id",
                                                 purpose: "looking for a moved source", bindings: [source.url]) {
                    (row) throws(LibraryError) in row.int64(0)
                }
                guard !books.isEmpty else { continue }
                return MovedSource(storedURL: source.url, name: source.name, move: move, bookIDs: books)
            }
            return nil
        }
    }

    /// `json` (a source as the library keeps it) with its `bookSourceUrl` value emptied.
    static func masked(_ json: String, sourceURL: String) -> String {
        let field = "\"bookSourceUrl\":"
        let written = field + JSONValue.string(sourceURL).serialized()
        guard let range = json.range(of: written) else { return json }
        return json.replacingCharacters(in: range, with: field + "\"\"")
    }
}
