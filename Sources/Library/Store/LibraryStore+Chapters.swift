import Foundation
import BookRuleDocument
import BookRuleEngine

extension LibraryStore {
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

    /// The chapter the TOC lists at `position` (from 0, volume headings counted: Legado's chapter index), with
    /// up to `following` chapters (not volume headings) listed after it, in order; nil when the TOC lists none
    /// there. Two index lookups instead of reading the whole TOC: what a server answering one chapter needs.
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func tocChapter(bookID: Int64, position: Int,
                           following: Int = 0) throws(LibraryError) -> (chapter: StoredChapter, following: [StoredChapter])? {
        try database.read { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            guard let found = try Self.chapters(connection, bookID: bookID, where: "book_id = ?1 AND in_toc = 1 AND position = ?2",
                                                bindings: [bookID, position], limit: 1).first else { return nil }
            guard following > 0 else { return (found.chapter, []) }
            let after = try Self.chapters(connection, bookID: bookID, where: """
                book_id = ?1 AND in_toc = 1 AND is_volume = 0 AND (position > ?2 OR (position = ?2 AND id > ?3))
                """, bindings: [bookID, position, found.id], limit: following)
            return (found.chapter, after.map(\.chapter))
        }
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
        try database.read { (connection) throws(LibraryError) in
            try connection.query("""
                SELECT t.text FROM chapters c JOIN chapter_texts t ON t.chapter_id = c.id
                WHERE c.book_id = ?1 AND c.key = ?2
                """, purpose: "reading chapter \(url)", bindings: [bookID, Self.lookupKey(url)]) {
                (row) throws(LibraryError) in row.text(0)
            }.first
        }
    }

    /// Saves a chapter's text in its own transaction: state `done`, one more attempt, `fetchedAt` now, the last
    /// error cleared, and the title replaced when `title` is given. Saving again replaces the text. The chapter
    /// records `sourceURL` as where its text came from (the book's current source when nil).
    /// - Throws: `LibraryError.emptyText` when `text` is empty or only whitespace (record a failure instead),
    ///   `.unknownChapter` when the book's TOC has no such chapter, `.unknownBook`.
    public func saveChapter(bookID: Int64, url: String, title: String? = nil, text: String,
                            sourceURL: String? = nil) throws(LibraryError) {
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw .emptyText(bookID: bookID, url: url)
        }
        let stamp = Self.milliseconds(now())
        let length = text.count
        try database.transaction("saving chapter \(url)") { (connection) throws(LibraryError) in
            let id = try Self.chapterID(bookID: bookID, url: url, connection)
            try connection.run("""
                UPDATE chapters SET state = 'done', attempts = attempts + 1, last_error = NULL, fetched_at = ?2,
                    text_length = ?3, title = coalesce(?4, title),
                    source_url = coalesce(?5, (SELECT b.source_url FROM books b WHERE b.id = chapters.book_id))
                WHERE id = ?1
                """, purpose: "saving chapter \(url)", bindings: [id, stamp, length, title, sourceURL])
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
    static func rekeyPositionalHeadings(
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
}
