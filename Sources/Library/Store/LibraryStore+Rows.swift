import Foundation
import BookRuleEngine
import BookRuleJSON

extension LibraryStore {
    // MARK: - Rows

    static let bookColumns = """
        SELECT b.id, b.source_url, s.name, b.url, b.name, b.author, b.intro, b.kind, b.cover_url, b.toc_url,
            b.variables, b.created_at, b.updated_at,
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.is_volume = 0),
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.state = 'done' AND c.is_volume = 0),
            (SELECT count(*) FROM chapters c WHERE c.book_id = b.id AND c.state = 'failed' AND c.is_volume = 0)
        FROM books b JOIN sources s ON s.url = b.source_url
        """

    /// `bookColumns` with the three counts as 0: they scan every chapter of the book, which a caller that only
    /// needs the book's identity (serve, per request) should not pay for.
    static let uncountedBookColumns = """
        SELECT b.id, b.source_url, s.name, b.url, b.name, b.author, b.intro, b.kind, b.cover_url, b.toc_url,
            b.variables, b.created_at, b.updated_at, 0, 0, 0
        FROM books b JOIN sources s ON s.url = b.source_url
        """

    static func books(
        _ connection: borrowing SQLiteConnection, where condition: String, bindings: [any SQLiteBindable],
        purpose: String, counting: Bool = true
    ) throws(LibraryError) -> [StoredBook] {
        try connection.query((counting ? bookColumns : uncountedBookColumns) + " WHERE \(condition) ORDER BY b.id", purpose: purpose,
                             bindings: bindings) { (row) throws(LibraryError) in
            StoredBook(id: row.int64(0), sourceURL: row.text(1), sourceName: row.text(2), url: row.text(3),
                       name: row.text(4), author: row.text(5), intro: row.text(6), kind: row.text(7),
                       coverURL: row.text(8), tocURL: row.text(9), variables: decodeVariables(row.text(10)),
                       createdAt: date(row.int64(11)), updatedAt: date(row.int64(12)), chapterCount: row.int(13),
                       doneCount: row.int(14), failedCount: row.int(15))
        }
    }

    func chapters(bookID: Int64, where condition: String,
                          bindings: [any SQLiteBindable]) throws(LibraryError) -> [StoredChapter] {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            return try Self.chapters(connection, bookID: bookID, where: condition, bindings: bindings).map(\.chapter)
        }
    }

    /// The chapters `condition` selects in TOC order (then by id), at most `limit` of them, each with its row id.
    static func chapters(
        _ connection: borrowing SQLiteConnection, bookID: Int64, where condition: String,
        bindings: [any SQLiteBindable], limit: Int? = nil
    ) throws(LibraryError) -> [(chapter: StoredChapter, id: Int64)] {
        try connection.query("""
            SELECT book_id, position, key, title, url, is_volume, in_toc, state, attempts, last_error,
                fetched_at, text_length, source_url, id
            FROM chapters WHERE \(condition) ORDER BY position, id\(limit.map { " LIMIT \($0)" } ?? "")
            """, purpose: "listing the chapters of book \(bookID)", bindings: bindings) {
            (row) throws(LibraryError) in
            (StoredChapter(bookID: row.int64(0), position: row.int(1), key: row.text(2), title: row.text(3),
                           url: row.text(4), isVolume: row.int64(5) != 0, inTOC: row.int64(6) != 0,
                           state: ChapterState(rawValue: row.text(7)) ?? .pending, attempts: row.int(8),
                           lastError: row.optionalText(9), fetchedAt: row.optionalInt64(10).map(Self.date),
                           textLength: row.int(11), sourceURL: row.optionalText(12)),
             row.int64(13))
        }
    }

    static func requireBook(_ bookID: Int64, _ connection: borrowing SQLiteConnection) throws(LibraryError) {
        let found = try connection.query("SELECT 1 FROM books WHERE id = ?1", purpose: "finding book \(bookID)",
                                         bindings: [bookID]) { (_) throws(LibraryError) in true }
        if found.isEmpty { throw .unknownBook(id: bookID) }
    }

    static func chapterID(bookID: Int64, url: String,
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
    /// `datetime(x / 1000, 'unixepoch')`); also how `bookrule serve` writes them for Legado's clients.
    package static func milliseconds(_ date: Date) -> Int64 {
        // A date from outside (a client's durChapterTime) can be infinite or past Int64: clamped, not trapped.
        let value = (date.timeIntervalSince1970 * 1000).rounded()
        guard value.isFinite else { return 0 }
        return Int64(exactly: value) ?? (value < 0 ? Int64.min : Int64.max)
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func encodeVariables(_ variables: [String: String]) -> String {
        (try? JSONWriter.string(variables)) ?? "{}"
    }

    /// The variables `encodeVariables` wrote; none when the text is not an object of strings. Read with the
    /// project's parser, not `JSONDecoder`: this runs for every book row read, and the decoder's setup was most
    /// of the cost of `bookrule serve` finding a book by its URL.
    static func decodeVariables(_ text: String) -> [String: String] {
        guard text != "{}", !text.isEmpty, let object = (try? JSONParser.parse(text))?.value.objectValue else { return [:] }
        var variables: [String: String] = [:]
        for member in object.members {
            guard let value = member.value.value.stringValue else { return [:] }
            variables[member.key] = value
        }
        return variables
    }

    static func trimmingTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1 && path.hasSuffix("/") { path = path.dropLast() }
        return String(path)
    }
}
