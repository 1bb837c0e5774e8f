import Foundation
import BookRuleEngine
import BookRuleJSON

extension LibraryStore {
    // MARK: - Books

    /// Adds the book `info` found with `source`, or updates the book already stored under the same source URL
    /// and book URL: its metadata is replaced and `updatedAt` moves only when something changed. The book's id
    /// never changes. The source's name and JSON are stored (or refreshed) too.
    @discardableResult
    public func upsertBook(source: BookSourceRecord, info: BookInfo) throws(LibraryError) -> StoredBook {
        let stamp = Self.milliseconds(now())
        return try database.transaction("saving book \(info.url)") { (connection) throws(LibraryError) in
            try Self.upsertBook(source: source, url: info.url, name: info.name, author: info.author, intro: info.intro,
                                kind: info.kind, coverURL: info.coverURL, tocURL: info.tocURL, variables: info.variables,
                                stamp: stamp, path: path, connection)
        }
    }

    /// `upsertBook(source:info:)` inside a transaction the caller holds (a WebDAV restore saves many books in one).
    static func upsertBook(source: BookSourceRecord, url: String, name: String, author: String, intro: String,
                           kind: String, coverURL: String, tocURL: String, variables: [String: String], stamp: Int64,
                           path: String, _ connection: borrowing SQLiteConnection) throws(LibraryError) -> StoredBook {
        let info = (url: url, name: name, author: author, intro: intro, kind: kind, coverURL: coverURL, tocURL: tocURL)
        let variables = Self.encodeVariables(variables)
        try connection.run("""
            INSERT INTO sources (url, name, json, updated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (url) DO UPDATE SET name = excluded.name, json = excluded.json,
                updated_at = excluded.updated_at
            WHERE name IS NOT excluded.name OR json IS NOT excluded.json
            """, purpose: "saving source \(source.sourceURL)",
            bindings: [source.sourceURL, source.sourceName, source.json, stamp])
        try connection.run("""
            INSERT INTO books (id, source_url, url, name, author, intro, kind, cover_url, toc_url, variables,
                               created_at, updated_at)
            VALUES (max(coalesce((SELECT max(id) FROM books), 0), coalesce((SELECT max(id) FROM removed_books), 0)) + 1,
                    ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)
            ON CONFLICT (source_url, url) DO UPDATE SET
                name = excluded.name, author = excluded.author, intro = excluded.intro, kind = excluded.kind,
                cover_url = excluded.cover_url, toc_url = excluded.toc_url, variables = excluded.variables,
                updated_at = excluded.updated_at
            WHERE name IS NOT excluded.name OR author IS NOT excluded.author OR intro IS NOT excluded.intro
                OR kind IS NOT excluded.kind OR cover_url IS NOT excluded.cover_url
                OR toc_url IS NOT excluded.toc_url OR variables IS NOT excluded.variables
            """, purpose: "saving book \(info.url)",
            bindings: [source.sourceURL, info.url, info.name, info.author, info.intro, info.kind, info.coverURL,
                       info.tocURL, variables, stamp])
        let books = try Self.books(connection, where: "b.source_url = ?1 AND b.url = ?2",
                                   bindings: [source.sourceURL, info.url], purpose: "reading book \(info.url)")
        guard let book = books.first else {
            throw .sqlite(path: path, purpose: "saving book \(info.url)", code: 0,
                          message: "the book was not found right after it was saved")
        }
        try connection.run("""
            INSERT INTO book_sources (book_id, source_url, book_url, variables) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (book_id, source_url) DO UPDATE SET book_url = excluded.book_url, variables = excluded.variables
            """, purpose: "saving book \(info.url)", bindings: [book.id, source.sourceURL, info.url, variables])
        return book
    }

    /// Every book, by id.
    public func books() throws(LibraryError) -> [StoredBook] {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.books(connection, where: "1", bindings: [], purpose: "listing books")
        }
    }

    /// The books whose book URL is `url` (one URL may be on several sources), by id; an index lookup, so a
    /// server answering a book by its URL does not read the whole shelf. Without `counting`, the chapter counts are 0
    /// (they scan the book's chapters: a server answering one chapter needs only the book's identity).
    public func books(url: String, counting: Bool = true) throws(LibraryError) -> [StoredBook] {
        try database.read { (connection) throws(LibraryError) in
            try Self.books(connection, where: "b.url = ?1", bindings: [url], purpose: "reading book \(url)", counting: counting)
        }
    }

    /// The book with this id, nil when there is none.
    public func book(id: Int64) throws(LibraryError) -> StoredBook? {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.books(connection, where: "b.id = ?1", bindings: [id], purpose: "reading book \(id)").first
        }
    }

    /// The books `query` names, best match first, each once: the book whose id is `query` (a number), then
    /// books whose book URL or TOC URL is exactly `query`, then books whose name contains `query` ignoring case
    /// (by id). An empty query matches nothing.
    public func findBooks(matching query: String) throws(LibraryError) -> [StoredBook] {
        let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { return [] }
        // Names are matched in Swift: SQLite's LIKE and lower() fold ASCII only, and a substring search cannot
        // use an index anyway; a library holds hundreds of books, not millions.
        let all = try books()
        var found: [StoredBook] = []
        var ids = Set<Int64>()
        func add(_ book: StoredBook) {
            if ids.insert(book.id).inserted { found.append(book) }
        }
        if let id = Int64(query) { all.filter { $0.id == id }.forEach(add) }
        all.filter { $0.url == query || $0.tocURL == query }.forEach(add)
        all.filter { $0.name.range(of: query, options: [.caseInsensitive]) != nil }.forEach(add)
        return found
    }

    /// Deletes the book with its chapters and their texts (its source stays: other books may use it). Its id
    /// is never given to another book, so files an application keeps by book id cannot be mistaken for a new
    /// book's.
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func removeBook(id: Int64) throws(LibraryError) {
        try database.transaction("removing book \(id)") { (connection) throws(LibraryError) in
            let removed = try connection.run("DELETE FROM books WHERE id = ?1", purpose: "removing book \(id)",
                                              bindings: [id])
            if removed == 0 { throw .unknownBook(id: id) }
        }
        // After the commit: files left by a crash in between belong to an id no book will have again.
        try? FileManager.default.removeItem(atPath: coverPath(bookID: id))
        try? FileManager.default.removeItem(atPath: mediaDirectory(bookID: id))
    }

    /// Where the cover of book `bookID` is kept: `covers/<id>` beside the database, so an export works with the
    /// site gone. `removeBook` deletes it.
    public func coverPath(bookID: Int64) -> String {
        directory + "/covers/\(bookID)"
    }

    /// Where the media files (audio, images) of book `bookID` are kept: `media/<id>/` beside the database.
    /// `removeBook` deletes it.
    public func mediaDirectory(bookID: Int64) -> String {
        mediaRoot + "/\(bookID)"
    }

    /// The folder holding every book's media folder.
    public var mediaRoot: String { directory + "/media" }

    /// The folder the database is in.
    var directory: String { Self.folder(ofLibraryAt: path) }

    /// The folder a library file is in: `.` for a bare file name (`--library lib.sqlite`), never `""`, whose
    /// `"" + "/name"` would be a path in `/`.
    public static func folder(ofLibraryAt path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }
}
