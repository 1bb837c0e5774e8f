import Foundation
import BookRuleEngine

extension LibraryStore {
    // MARK: - Sources a book is known on

    /// The sources book `bookID` is known on, the current one first, then by name.
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func knownSources(bookID: Int64) throws(LibraryError) -> [KnownSource] {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            return try connection.query("""
                SELECT k.source_url, s.name, s.json, k.book_url, k.variables, k.toc_length, k.latest_chapter,
                    k.checked_at, k.source_url = b.source_url
                FROM book_sources k JOIN sources s ON s.url = k.source_url JOIN books b ON b.id = k.book_id
                WHERE k.book_id = ?1 ORDER BY k.source_url = b.source_url DESC, s.name, k.source_url
                """, purpose: "listing the sources of book \(bookID)", bindings: [bookID]) { (row) throws(LibraryError) in
                KnownSource(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2), bookURL: row.text(3),
                            variables: Self.decodeVariables(row.text(4)), tocLength: row.optionalInt64(5).map { Int($0) },
                            latestChapter: row.optionalText(6), checkedAt: row.optionalInt64(7).map(Self.date),
                            isCurrent: row.int64(8) != 0)
            }
        }
    }

    /// Records that book `bookID` is on `source` at `bookURL`, with what its TOC held when read now (or keeps
    /// the last check when `tocLength` is nil). The book stays on its current source.
    public func recordSource(bookID: Int64, source: BookSourceRecord, bookURL: String, variables: [String: String] = [:],
                             tocLength: Int? = nil, latestChapter: String? = nil) throws(LibraryError) {
        let stamp = Self.milliseconds(now())
        try database.transaction("recording a source of book \(bookID)") { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            try Self.saveSource(source, stamp: stamp, connection)
            try Self.saveKnownSource(bookID: bookID, source: source.sourceURL, bookURL: bookURL, variables: variables,
                                     tocLength: tocLength, latestChapter: latestChapter, stamp: stamp, connection)
        }
    }

    /// How `chapters` (another source's TOC) align with book `bookID`'s chapters; nothing is written.
    public func plannedSwitch(bookID: Int64, chapters: [Chapter]) throws(LibraryError) -> SourceSwitch {
        try database.withConnection { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            return try Self.plan(bookID: bookID, chapters: chapters, connection).plan
        }
    }

    /// Moves book `bookID` to `source` (the book `info` there, with TOC `chapters`) in one transaction: the new
    /// TOC is aligned with the saved chapters (`ChapterAlignment`); matched chapters keep their state and text
    /// and take the new title, URL and place; new entries are added as pending; saved chapters nothing
    /// matches are kept, marked no longer listed, after the listed ones. The old source stays known.
    /// - Throws: `LibraryError.bookOnSourceExists` when another book is that source's copy already.
    @discardableResult
    public func switchSource(bookID: Int64, source: BookSourceRecord, info: BookInfo,
                             chapters: [Chapter]) throws(LibraryError) -> SourceSwitch {
        let stamp = Self.milliseconds(now())
        let variables = Self.encodeVariables(info.variables)
        let latest = chapters.last { !$0.isVolume }?.title
        return try database.transaction("moving book \(bookID) to \(source.sourceURL)") { (connection) throws(LibraryError) in
            let purpose = "moving book \(bookID) to \(source.sourceURL)"
            try Self.requireBook(bookID, connection)
            let other = try connection.query("SELECT id FROM books WHERE source_url = ?1 AND url = ?2 AND id <> ?3",
                                             purpose: purpose, bindings: [source.sourceURL, info.url, bookID]) {
                (row) throws(LibraryError) in row.int64(0)
            }
            if let other = other.first {
                throw .bookOnSourceExists(bookID: bookID, otherBookID: other, sourceURL: source.sourceURL)
            }
            let (plan, savedIDs, savedKeys) = try Self.plan(bookID: bookID, chapters: chapters, connection)
            try Self.saveSource(source, stamp: stamp, connection)
            try connection.run("""
                UPDATE books SET source_url = ?2, url = ?3, toc_url = ?4, variables = ?5, updated_at = ?6 WHERE id = ?1
                """, purpose: purpose, bindings: [bookID, source.sourceURL, info.url, info.tocURL, variables, stamp])
            try Self.saveKnownSource(bookID: bookID, source: source.sourceURL, bookURL: info.url,
                                     variables: info.variables, tocLength: chapters.count, latestChapter: latest,
                                     stamp: stamp, connection)
            // Keys are unique per book: park every row on a key of its own first, so the new keys can be
            // given in any order.
            try connection.run("UPDATE chapters SET key = 'switching:' || id WHERE book_id = ?1",
                               purpose: purpose, bindings: [bookID])
            let update = try connection.prepare("""
                UPDATE chapters SET key = ?2, url = ?3, position = ?4, title = ?5, is_volume = ?6, in_toc = 1 WHERE id = ?1
                """, purpose: purpose)
            let insert = try connection.prepare("""
                INSERT INTO chapters (book_id, key, url, position, title, is_volume) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """, purpose: purpose)
            let matchedSaved = Dictionary(plan.alignment.matches.map { ($0.incoming, $0.saved) }, uniquingKeysWith: { a, _ in a })
            var keys = Set<String>()
            var headings: [String: Int] = [:]
            var position = 0
            for (index, chapter) in chapters.enumerated() {
                var occurrence = 0
                if chapter.url.isEmpty {
                    occurrence = headings[chapter.title, default: 0] + 1
                    headings[chapter.title] = occurrence
                }
                let key = Self.chapterKey(url: chapter.url, title: chapter.title, occurrence: occurrence)
                guard keys.insert(key).inserted else { continue }
                if let saved = matchedSaved[index] {
                    try update.run([savedIDs[saved], key, chapter.url, position, chapter.title, chapter.isVolume])
                } else {
                    try insert.run([bookID, key, chapter.url, position, chapter.title, chapter.isVolume])
                }
                position += 1
            }
            let hide = try connection.prepare("UPDATE chapters SET key = ?2, position = ?3, in_toc = 0 WHERE id = ?1",
                                              purpose: purpose)
            for saved in plan.alignment.unmatched {
                // The old key, unless a new entry has taken it: then a prefix keeps it apart.
                let key = keys.contains(savedKeys[saved]) ? "unlisted:\(savedIDs[saved]):" + savedKeys[saved] : savedKeys[saved]
                try hide.run([savedIDs[saved], key, position])
                position += 1
            }
            return plan
        }
    }

    static func plan(bookID: Int64, chapters: [Chapter], _ connection: borrowing SQLiteConnection)
        throws(LibraryError) -> (plan: SourceSwitch, ids: [Int64], keys: [String]) {
        let saved = try connection.query("""
            SELECT id, key, title, state = 'done' FROM chapters WHERE book_id = ?1 ORDER BY position, id
            """, purpose: "reading the chapters of book \(bookID)", bindings: [bookID]) { (row) throws(LibraryError) in
            (id: row.int64(0), key: row.text(1), title: row.text(2), done: row.int64(3) != 0)
        }
        let incoming = chapters.map(\.title)
        let alignment = ChapterAlignment(saved: saved.map(\.title), incoming: incoming)
        let kept = alignment.matches.filter { saved[$0.saved].done }.count
        let unlisted = alignment.unmatched.filter { saved[$0].done }.count
        let plan = SourceSwitch(savedTitles: saved.map(\.title), incomingTitles: incoming, alignment: alignment,
                                textsKept: kept, textsUnlisted: unlisted)
        return (plan, saved.map(\.id), saved.map(\.key))
    }

    static func saveSource(_ source: BookSourceRecord, stamp: Int64, _ connection: borrowing SQLiteConnection) throws(LibraryError) {
        try connection.run("""
            INSERT INTO sources (url, name, json, updated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (url) DO UPDATE SET name = excluded.name, json = excluded.json, updated_at = excluded.updated_at
            WHERE name IS NOT excluded.name OR json IS NOT excluded.json
            """, purpose: "saving source \(source.sourceURL)",
            bindings: [source.sourceURL, source.sourceName, source.json, stamp])
    }

    static func saveKnownSource(bookID: Int64, source: String, bookURL: String, variables: [String: String],
                                tocLength: Int?, latestChapter: String?, stamp: Int64,
                                _ connection: borrowing SQLiteConnection) throws(LibraryError) {
        try connection.run("""
            INSERT INTO book_sources (book_id, source_url, book_url, variables, toc_length, latest_chapter, checked_at)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, CASE WHEN ?5 IS NULL THEN NULL ELSE ?7 END)
            ON CONFLICT (book_id, source_url) DO UPDATE SET book_url = excluded.book_url, variables = excluded.variables,
                toc_length = coalesce(excluded.toc_length, toc_length),
                latest_chapter = coalesce(excluded.latest_chapter, latest_chapter),
                checked_at = coalesce(excluded.checked_at, checked_at)
            """, purpose: "recording a source of book \(bookID)",
            bindings: [bookID, source, bookURL, encodeVariables(variables), tocLength, latestChapter, stamp])
    }
}
