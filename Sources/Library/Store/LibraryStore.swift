import Foundation
import BookRuleDocument
import BookRuleEngine
import BookRuleJSON

/// The offline library: books, their tables of contents and the text of every chapter fetched, in one SQLite
/// file that survives crashes and reruns.
///
/// - Each chapter is saved in its own transaction, keyed by its canonical URL (the URL without `#fragment`), so a
///   kill -9 at any moment loses at most the chapter being written and the library always opens again.
/// - A rerun asks `chaptersToFetch(bookID:)`: saved chapters are skipped, failed ones retried, and chapters new
///   in the TOC (after `mergeTOC`) fetched; existing chapters keep their text.
/// - A chapter that keeps failing stays `failed` with its last error (`markFailed`); empty text is refused, so no
///   placeholder is ever stored as a chapter.
/// - Two processes may open the same library: writes wait up to the busy timeout for each other, and past it
///   fail with `LibraryError.busy`, which says so plainly. Reads never wait for a writer (WAL).
///
/// Chapter texts live in their own table (`chapter_texts`, keyed by chapter id), so listing a book's chapters
/// reads small rows and never pages through the texts.
///
/// Methods block the calling thread for the duration of their SQLite work (milliseconds, or up to the busy
/// timeout when another process writes). The store is safe to share between threads and tasks.
public final class LibraryStore: Sendable {
    /// The library file.
    public let path: String
    /// The schema version this build creates and reads (`PRAGMA user_version`).
    public static var schemaVersion: Int { migrations.count }

    let database: SQLiteDatabase
    private let now: @Sendable () -> Date

    /// Where the library lives when `--library` is not given: `$XDG_DATA_HOME/bookrule/library.sqlite`, or
    /// `~/.local/share/bookrule/library.sqlite` when `XDG_DATA_HOME` is unset, empty or relative (the XDG
    /// specification says to ignore a relative value).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return trimmingTrailingSlashes(data) + "/bookrule/library.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return trimmingTrailingSlashes(home) + "/.local/share/bookrule/library.sqlite"
    }

    /// Opens the library at `path`, creating it (and its parent directories) when missing and bringing an older
    /// schema up to date.
    ///
    /// - Parameter busyTimeout: how long a write waits for another process's write to finish before failing
    ///   with `LibraryError.busy`.
    /// - Throws: `LibraryError.newerSchema` for a library written by a newer bookrule, `.notALibrary` for a file
    ///   that is not one, `.busy`, `.cannotCreateDirectory`, or `.sqlite` with SQLite's message.
    public convenience init(path: String, busyTimeout: Duration = .seconds(5)) throws(LibraryError) {
        try self.init(path: path, busyTimeout: busyTimeout, now: { Date() })
    }

    /// Opens the library with a clock of the caller's choosing (tests).
    init(path: String, busyTimeout: Duration, now: @escaping @Sendable () -> Date) throws(LibraryError) {
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            let directory = String(path[..<slash])
            do {
                try LocalFile.makeDirectories(directory)
            } catch {
                throw .cannotCreateDirectory(path: error.path, reason: error.reason)
            }
        }
        self.path = path
        self.now = now
        database = try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
        try migrate()
    }

    // MARK: - Books

    /// Adds the book `info` found with `source`, or updates the book already stored under the same source URL
    /// and book URL: its metadata is replaced and `updatedAt` moves only when something changed. The book's id
    /// never changes. The source's name and JSON are stored (or refreshed) too.
    @discardableResult
    public func upsertBook(source: BookSourceRecord, info: BookInfo) throws(LibraryError) -> StoredBook {
        let variables = Self.encodeVariables(info.variables)
        let stamp = Self.milliseconds(now())
        return try database.transaction("saving book \(info.url)") { (connection) throws(LibraryError) in
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
            return book
        }
    }

    /// Every book, by id.
    public func books() throws(LibraryError) -> [StoredBook] {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.books(connection, where: "1", bindings: [], purpose: "listing books")
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
    private var directory: String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    // MARK: - Chapters

    /// Merges a freshly read table of contents into the book's chapters, in one transaction.
    ///
    /// Chapters are matched by key: the canonical URL (without `#fragment`), or `heading:<n>:<title>` for the
    /// n-th entry of that title without a URL. Matched chapters keep their state and text and take the new title, URL and place;
    /// new ones are added as pending; the order follows `chapters`. Chapters no longer listed are kept, marked
    /// `inTOC == false` and placed after the listed ones in their previous order: nothing is ever deleted. When
    /// `chapters` lists a key twice, the first entry counts (as the engine's TOC does).
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    @discardableResult
    public func mergeTOC(bookID: Int64, chapters: [Chapter]) throws(LibraryError) -> TOCMerge {
        var seen = Set<String>()
        var entries: [(key: String, chapter: Chapter)] = []
        var headings: [String: Int] = [:]
        for chapter in chapters {
            var occurrence = 0
            if chapter.url.isEmpty {
                occurrence = headings[chapter.title, default: 0] + 1
                headings[chapter.title] = occurrence
            }
            let key = Self.chapterKey(url: chapter.url, title: chapter.title, occurrence: occurrence)
            if seen.insert(key).inserted { entries.append((key, chapter)) }
        }
        let duplicates = chapters.count - entries.count
        let purpose = "merging the table of contents of book \(bookID)"
        return try database.transaction(purpose) { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            var existing = try connection.query(
                "SELECT id, key FROM chapters WHERE book_id = ?1 ORDER BY position, id", purpose: purpose,
                bindings: [bookID]) { (row) throws(LibraryError) in (id: row.int64(0), key: row.text(1)) }
            try Self.rekeyPositionalHeadings(&existing, connection: connection, purpose: purpose)
            var existingIDs: [String: Int64] = [:]
            for chapter in existing { existingIDs[chapter.key] = chapter.id }

            let update = try connection.prepare("""
                UPDATE chapters SET position = ?2, title = ?3, url = ?4, is_volume = ?5, in_toc = 1 WHERE id = ?1
                """, purpose: purpose)
            let insert = try connection.prepare("""
                INSERT INTO chapters (book_id, key, url, position, title, is_volume) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """, purpose: purpose)
            var added = 0
            for (position, entry) in entries.enumerated() {
                let chapter = entry.chapter
                if let id = existingIDs[entry.key] {
                    try update.run([id, position, chapter.title, chapter.url, chapter.isVolume])
                } else {
                    try insert.run([bookID, entry.key, chapter.url, position, chapter.title, chapter.isVolume])
                    added += 1
                }
            }
            let vanished = existing.filter { !seen.contains($0.key) }
            let hide = try connection.prepare("UPDATE chapters SET position = ?2, in_toc = 0 WHERE id = ?1",
                                              purpose: purpose)
            for (offset, chapter) in vanished.enumerated() {
                try hide.run([chapter.id, entries.count + offset])
            }
            return TOCMerge(added: added, kept: entries.count - added, missingFromTOC: vanished.count,
                            duplicatesIgnored: duplicates)
        }
    }

    /// The book's chapters (volume headings included) in TOC order, those no longer listed last; only those in
    /// `states` when given. Texts are not read: see `text(bookID:url:)`.
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func chapters(bookID: Int64, states: Set<ChapterState>? = nil) throws(LibraryError) -> [StoredChapter] {
        var condition = "book_id = ?1"
        var bindings: [any SQLiteBindable] = [bookID]
        if let states {
            let sorted = states.map(\.rawValue).sorted()
            condition += " AND state IN (" + sorted.indices.map { "?\($0 + 2)" }.joined(separator: ", ") + ")"
            bindings += sorted
        }
        return try chapters(bookID: bookID, where: condition, bindings: bindings)
    }

    /// What a run should fetch: chapters (not volume headings) still listed in the TOC, with a URL, that are
    /// pending (never fetched, or new in the TOC) or failed (to retry), in TOC order. Saved chapters are skipped.
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func chaptersToFetch(bookID: Int64) throws(LibraryError) -> [StoredChapter] {
        try chapters(bookID: bookID, where: """
            book_id = ?1 AND is_volume = 0 AND in_toc = 1 AND url <> '' AND state IN ('pending', 'failed')
            """, bindings: [bookID])
    }

    /// The saved text of the chapter at `url` (with or without its `#fragment`), nil when it has none (never
    /// fetched, failed, or not in the book).
    public func text(bookID: Int64, url: String) throws(LibraryError) -> String? {
        try database.query("""
            SELECT t.text FROM chapters c JOIN chapter_texts t ON t.chapter_id = c.id
            WHERE c.book_id = ?1 AND c.key = ?2
            """, purpose: "reading chapter \(url)", bindings: [bookID, Self.lookupKey(url)]) {
            (row) throws(LibraryError) in row.text(0)
        }.first
    }

    /// Saves a chapter's text in its own transaction: state `done`, one more attempt, `fetchedAt` now, the last
    /// error cleared, and the title replaced when `title` is given. Saving again replaces the text.
    /// - Throws: `LibraryError.emptyText` when `text` is empty or only whitespace (record a failure instead),
    ///   `.unknownChapter` when the book's TOC has no such chapter, `.unknownBook`.
    public func saveChapter(bookID: Int64, url: String, title: String? = nil, text: String) throws(LibraryError) {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .emptyText(bookID: bookID, url: url)
        }
        let stamp = Self.milliseconds(now())
        let length = text.count
        try database.transaction("saving chapter \(url)") { (connection) throws(LibraryError) in
            let id = try Self.chapterID(bookID: bookID, url: url, connection)
            try connection.run("""
                UPDATE chapters SET state = 'done', attempts = attempts + 1, last_error = NULL, fetched_at = ?2,
                    text_length = ?3, title = coalesce(?4, title)
                WHERE id = ?1
                """, purpose: "saving chapter \(url)", bindings: [id, stamp, length, title])
            try connection.run("""
                INSERT INTO chapter_texts (chapter_id, text) VALUES (?1, ?2)
                ON CONFLICT (chapter_id) DO UPDATE SET text = excluded.text
                """, purpose: "saving chapter \(url)", bindings: [id, text])
        }
    }

    /// Records a failed attempt at a chapter: one more attempt and `error` as its last error. A pending or failed
    /// chapter becomes `failed` (a rerun retries it); a chapter already saved stays `done` with its text (a
    /// failed refresh loses nothing) and keeps the error as its last one.
    /// - Throws: `LibraryError.unknownChapter` when the book's TOC has no such chapter, `.unknownBook`.
    public func markFailed(bookID: Int64, url: String, error: String) throws(LibraryError) {
        try database.transaction("recording the failure of chapter \(url)") { (connection) throws(LibraryError) in
            let id = try Self.chapterID(bookID: bookID, url: url, connection)
            try connection.run("""
                UPDATE chapters SET state = CASE state WHEN 'done' THEN 'done' ELSE 'failed' END,
                    attempts = attempts + 1, last_error = ?2
                WHERE id = ?1
                """, purpose: "recording the failure of chapter \(url)", bindings: [id, error])
        }
    }

    // MARK: - Keys

    /// The key a TOC entry is stored under: its URL without `#fragment`, or, for a heading without a URL,
    /// `heading:<n>:<title>` where n counts the headings of that title so far (1 for the first). Not keyed by
    /// position: a TOC that gains entries above a heading still finds it.
    static func chapterKey(url: String, title: String, occurrence: Int) -> String {
        url.isEmpty ? "heading:\(occurrence):\(title)" : canonicalURL(url)
    }

    /// Libraries written before headings were keyed by title kept `volume:<position>:<title>`: those keys are
    /// rewritten (in TOC order) to the form `chapterKey` gives now, so their rows keep matching.
    private static func rekeyPositionalHeadings(
        _ existing: inout [(id: Int64, key: String)], connection: borrowing SQLiteConnection, purpose: String
    ) throws(LibraryError) {
        guard existing.contains(where: { $0.key.hasPrefix("volume:") }) else { return }
        var keys = Set(existing.map(\.key))
        var headings: [String: Int] = [:]
        let rekey = try connection.prepare("UPDATE chapters SET key = ?2 WHERE id = ?1", purpose: purpose)
        for index in existing.indices where existing[index].key.hasPrefix("volume:") {
            let rest = existing[index].key.dropFirst("volume:".count)
            guard let colon = rest.firstIndex(of: ":"), !rest[..<colon].isEmpty,
                  rest[..<colon].allSatisfy(\.isASCII), rest[..<colon].allSatisfy(\.isNumber) else { continue }
            let title = String(rest[rest.index(after: colon)...])
            let occurrence = headings[title, default: 0] + 1
            headings[title] = occurrence
            let key = chapterKey(url: "", title: title, occurrence: occurrence)
            guard keys.insert(key).inserted else { continue }
            try rekey.run([existing[index].id, key])
            existing[index].key = key
        }
    }

    /// `url` without its `#fragment` (the fragment never reaches the server).
    static func canonicalURL(_ url: String) -> String {
        URLReference.withoutFragment(url)
    }

    /// The key for a URL a caller passes: a chapter URL is canonicalized, a volume key is taken as it is.
    static func lookupKey(_ url: String) -> String {
        url.hasPrefix("heading:") || url.hasPrefix("volume:") ? url : canonicalURL(url)
    }

    // MARK: - Rows

    private static let bookColumns = """
        SELECT b.id, b.source_url, s.name, b.url, b.name, b.author, b.intro, b.kind, b.cover_url, b.toc_url,
            b.variables, b.created_at, b.updated_at,
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.is_volume = 0),
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.state = 'done' AND c.is_volume = 0),
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.state = 'failed' AND c.is_volume = 0)
        FROM books b JOIN sources s ON s.url = b.source_url
        """

    private static func books(
        _ connection: borrowing SQLiteConnection, where condition: String, bindings: [any SQLiteBindable],
        purpose: String
    ) throws(LibraryError) -> [StoredBook] {
        try connection.query(bookColumns + " WHERE \(condition) ORDER BY b.id", purpose: purpose,
                             bindings: bindings) { (row) throws(LibraryError) in
            StoredBook(id: row.int64(0), sourceURL: row.text(1), sourceName: row.text(2), url: row.text(3),
                       name: row.text(4), author: row.text(5), intro: row.text(6), kind: row.text(7),
                       coverURL: row.text(8), tocURL: row.text(9), variables: decodeVariables(row.text(10)),
                       createdAt: date(row.int64(11)), updatedAt: date(row.int64(12)), chapterCount: row.int(13),
                       doneCount: row.int(14), failedCount: row.int(15))
        }
    }

    private func chapters(bookID: Int64, where condition: String,
                          bindings: [any SQLiteBindable]) throws(LibraryError) -> [StoredChapter] {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            return try connection.query("""
                SELECT book_id, position, key, title, url, is_volume, in_toc, state, attempts, last_error,
                    fetched_at, text_length
                FROM chapters WHERE \(condition) ORDER BY position, id
                """, purpose: "listing the chapters of book \(bookID)", bindings: bindings) {
                (row) throws(LibraryError) in
                StoredChapter(bookID: row.int64(0), position: row.int(1), key: row.text(2), title: row.text(3),
                              url: row.text(4), isVolume: row.int64(5) != 0, inTOC: row.int64(6) != 0,
                              state: ChapterState(rawValue: row.text(7)) ?? .pending, attempts: row.int(8),
                              lastError: row.optionalText(9), fetchedAt: row.optionalInt64(10).map(Self.date),
                              textLength: row.int(11))
            }
        }
    }

    private static func requireBook(_ bookID: Int64, _ connection: borrowing SQLiteConnection) throws(LibraryError) {
        let found = try connection.query("SELECT 1 FROM books WHERE id = ?1", purpose: "finding book \(bookID)",
                                         bindings: [bookID]) { (_) throws(LibraryError) in true }
        if found.isEmpty { throw .unknownBook(id: bookID) }
    }

    private static func chapterID(bookID: Int64, url: String,
                                  _ connection: borrowing SQLiteConnection) throws(LibraryError) -> Int64 {
        let ids = try connection.query("SELECT id FROM chapters WHERE book_id = ?1 AND key = ?2",
                                       purpose: "finding chapter \(url)", bindings: [bookID, lookupKey(url)]) {
            (row) throws(LibraryError) in row.int64(0)
        }
        guard let id = ids.first else {
            try requireBook(bookID, connection)
            throw .unknownChapter(bookID: bookID, url: url)
        }
        return id
    }

    // MARK: - Values

    /// Timestamps are stored as integer milliseconds since 1970 (exact, sortable, readable with
    /// `datetime(x / 1000, 'unixepoch')`).
    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    private static func encodeVariables(_ variables: [String: String]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(variables) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func decodeVariables(_ text: String) -> [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))) ?? [:]
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }

    // MARK: - Schema

    /// Marks the file as a bookrule library (`PRAGMA application_id`, "bkrl"), so another program's database is
    /// refused instead of being given bookrule's tables.
    static let applicationID: Int32 = 0x626B_726C

    /// The schema, one entry per version: entry N-1 takes a library from version N-1 to N. Append, never edit:
    /// libraries in the wild were built by the entries already released. (Foreign keys stay on during
    /// migrations; a future migration that rebuilds a referenced table has to account for that.)
    static let migrations: [String] = [
        """
        CREATE TABLE sources (
            url TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            json TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            source_url TEXT NOT NULL REFERENCES sources (url) ON UPDATE CASCADE,
            url TEXT NOT NULL,
            name TEXT NOT NULL,
            author TEXT NOT NULL,
            intro TEXT NOT NULL,
            kind TEXT NOT NULL,
            cover_url TEXT NOT NULL,
            toc_url TEXT NOT NULL,
            variables TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (source_url, url)
        ) STRICT;
        CREATE INDEX books_by_url ON books (url);
        CREATE TABLE chapters (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            url TEXT NOT NULL,
            position INTEGER NOT NULL,
            title TEXT NOT NULL,
            is_volume INTEGER NOT NULL CHECK (is_volume IN (0, 1)),
            in_toc INTEGER NOT NULL DEFAULT 1 CHECK (in_toc IN (0, 1)),
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            fetched_at INTEGER,
            text_length INTEGER NOT NULL DEFAULT 0,
            UNIQUE (book_id, key)
        ) STRICT;
        CREATE INDEX chapters_by_position ON chapters (book_id, position);
        CREATE INDEX chapters_by_state ON chapters (book_id, state, is_volume);
        CREATE TABLE chapter_texts (
            chapter_id INTEGER PRIMARY KEY REFERENCES chapters (id) ON DELETE CASCADE,
            text TEXT NOT NULL
        ) STRICT;
        """,
        // Version 2: a removed book's id is never given to another book. Files kept by book id beside the
        // library (covers, media) of a removed book must not be found by a new one.
        """
        CREATE TABLE removed_books (id INTEGER PRIMARY KEY) STRICT;
        CREATE TRIGGER remember_removed_book AFTER DELETE ON books BEGIN
            INSERT OR IGNORE INTO removed_books (id) VALUES (old.id);
        END;
        """,
    ]

    /// Brings the schema to `schemaVersion` in one transaction, refusing files that are not bookrule libraries
    /// and libraries from a newer build. An up-to-date library is only read, so opening one never waits for
    /// another process's write.
    private func migrate() throws(LibraryError) {
        let path = path
        let directory = directory
        let purpose = "reading the library schema version"
        if try Self.checkHeader(path: path, try database.withConnection { (connection) throws(LibraryError) in
            try Self.header(connection, purpose: purpose)
        }) { return }
        try database.transaction("upgrading the library schema") { (connection) throws(LibraryError) in
            // Read again under the write lock: another process may have migrated in between.
            let header = try Self.header(connection, purpose: purpose)
            if try Self.checkHeader(path: path, header) { return }
            for (index, sql) in Self.migrations.enumerated().dropFirst(header.version) {
                try connection.execute(sql, purpose: "upgrading the library schema to version \(index + 1)")
            }
            if header.version < 2 {
                try Self.rememberIDsOfFilesLeftBehind(connection, directory: directory)
            }
            try connection.execute("PRAGMA application_id = \(Self.applicationID)", purpose: "marking the library")
            try connection.execute("PRAGMA user_version = \(Self.migrations.count)",
                                   purpose: "recording the library schema version")
        }
    }

    /// Ids of books removed before version 2 remembered them, found from the files still kept by id
    /// (`covers/<id>`, `media/<id>/`): no new book may take them and inherit those files.
    private static func rememberIDsOfFilesLeftBehind(_ connection: borrowing SQLiteConnection, directory: String) throws(LibraryError) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/covers")) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/media")) ?? [])
        let remember = try connection.prepare("""
            INSERT OR IGNORE INTO removed_books (id) SELECT ?1 WHERE NOT EXISTS (SELECT 1 FROM books WHERE id = ?1)
            """, purpose: "remembering the ids of removed books")
        for name in names {
            guard let id = Int64(name), id > 0 else { continue }
            try remember.run([id])
        }
    }

    private typealias Header = (version: Int, application: Int, objects: Int)

    /// `user_version`, `application_id` and the number of schema objects.
    private static func header(_ connection: borrowing SQLiteConnection,
                               purpose: String) throws(LibraryError) -> Header {
        let rows = try connection.query("""
            SELECT (SELECT user_version FROM pragma_user_version),
                (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)
            """, purpose: purpose) { (row) throws(LibraryError) in
            (version: row.int(0), application: row.int(1), objects: row.int(2))
        }
        return rows.first ?? (0, 0, 0)
    }

    /// True when the library is current; false when it needs migrations; throws when it must not be touched.
    private static func checkHeader(path: String, _ header: Header) throws(LibraryError) -> Bool {
        let empty = header.application == 0 && header.version == 0 && header.objects == 0
        if header.application != Int(applicationID) && !empty {
            throw .notALibrary(path: path, reason: "it is an SQLite database of another program")
        }
        if header.version > migrations.count {
            throw .newerSchema(path: path, found: header.version, supported: migrations.count)
        }
        return header.version == migrations.count
    }
}

/// The source a book was found with, as the library keeps it.
public struct BookSourceRecord: Sendable, Equatable, Codable {
    /// The source's `bookSourceUrl`, its identity.
    public var sourceURL: String
    /// The source's `bookSourceName`.
    public var sourceName: String
    /// The source's JSON text, so the library can fetch new chapters later without the original file.
    public var json: String

    /// Creates a record.
    public init(sourceURL: String, sourceName: String, json: String) {
        self.sourceURL = sourceURL
        self.sourceName = sourceName
        self.json = json
    }
}

/// A book as the library holds it.
public struct StoredBook: Sendable, Equatable, Codable {
    /// The library's id for the book (stable across updates).
    public var id: Int64
    /// The source's `bookSourceUrl`.
    public var sourceURL: String
    /// The source's name.
    public var sourceName: String
    /// The book page's URL.
    public var url: String
    /// Book title.
    public var name: String
    /// Author.
    public var author: String
    /// Blurb.
    public var intro: String
    /// Categories and tags, comma-separated.
    public var kind: String
    /// Cover image URL, "" when none.
    public var coverURL: String
    /// Table of contents URL.
    public var tocURL: String
    /// `@put` variables from the book page, carried on to the TOC and chapters.
    public var variables: [String: String]
    /// When the book was first stored.
    public var createdAt: Date
    /// When its metadata last changed.
    public var updatedAt: Date
    /// Chapters (volume headings not counted), including those no longer in the TOC.
    public var chapterCount: Int
    /// Chapters saved.
    public var doneCount: Int
    /// Chapters whose last attempt failed and that have no text.
    public var failedCount: Int
}

/// Where a chapter stands.
public enum ChapterState: String, Sendable, Codable, Hashable, CaseIterable {
    /// Listed, never fetched.
    case pending
    /// Saved with its text.
    case done
    /// Tried and failed; the last error is kept and a rerun retries it.
    case failed
}

/// A chapter as the library holds it (without its text, which `LibraryStore.text(bookID:url:)` reads).
public struct StoredChapter: Sendable, Equatable, Codable {
    /// The book's id.
    public var bookID: Int64
    /// Place in the book, from 0: TOC order, then chapters no longer listed.
    public var position: Int
    /// The chapter's identity in the book: its URL without `#fragment`, or `heading:<n>:<title>` for the n-th
    /// heading of that title without a URL.
    public var key: String
    /// Chapter title.
    public var title: String
    /// The URL as the TOC last gave it ("" for a volume heading without a link).
    public var url: String
    /// Whether this is a volume heading.
    public var isVolume: Bool
    /// Whether the last merged TOC lists it (false: it vanished from the site's TOC; its text is kept).
    public var inTOC: Bool
    /// Pending, done or failed.
    public var state: ChapterState
    /// Fetch attempts so far, successful or not.
    public var attempts: Int
    /// The last failure's message; nil after a successful save.
    public var lastError: String?
    /// When the text was saved.
    public var fetchedAt: Date?
    /// Characters in the saved text, 0 when none.
    public var textLength: Int
}

/// What `LibraryStore.mergeTOC` did.
public struct TOCMerge: Sendable, Equatable, Codable {
    /// Chapters new in the TOC, stored as pending.
    public var added: Int
    /// Chapters already stored and still listed (state and text kept).
    public var kept: Int
    /// Stored chapters the TOC no longer lists (kept, marked not in the TOC).
    public var missingFromTOC: Int
    /// Entries ignored because an earlier entry had the same key.
    public var duplicatesIgnored: Int
}
