import Foundation

extension LibraryStore {
    // MARK: - Restoring a Legado backup

    /// Merges a Legado backup's shelf into the library in one transaction: `sources` saved by URL (name and
    /// JSON replaced), then each book added or updated by source and book URL, with its progress where it is
    /// further than the library's (Legado's rule); books whose source is neither in `sources` nor in the library
    /// are left out and listed; `rssSources` saved by URL as `saveRssSources` saves them. `beforeCommit` runs
    /// last inside the transaction (the replace rules file is written there), so when anything throws, nothing
    /// of the restore is kept.
    public func restore(books: [LegadoShelfBook], sources: [BookSourceRecord], rssSources: [RssSourceRecord] = [],
                        beforeCommit: () throws(LibraryError) -> Void = {}) throws(LibraryError) -> LibraryRestoreSummary {
        let stamp = Self.milliseconds(now())
        return try database.transaction("restoring a Legado backup") { (connection) throws(LibraryError) in
            var summary = LibraryRestoreSummary()
            let save = try connection.prepare("""
                INSERT INTO sources (url, name, json, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (url) DO UPDATE SET name = excluded.name, json = excluded.json, updated_at = excluded.updated_at
                WHERE name IS NOT excluded.name OR json IS NOT excluded.json
                """, purpose: "restoring sources")
            for source in sources {
                try save.run([source.sourceURL, source.sourceName, source.json, stamp])
            }
            summary.sources = sources.count
            try Self.saveRssSources(rssSources, stamp: stamp, connection)
            summary.rssSources = rssSources.count
            let known = try connection.query("SELECT url, name, json FROM sources", purpose: "reading sources") {
                (row) throws(LibraryError) in BookSourceRecord(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2))
            }
            let byURL = Dictionary(known.map { ($0.sourceURL, $0) }, uniquingKeysWith: { first, _ in first })
            for book in books {
                guard let source = byURL[book.sourceURL] else {
                    summary.skipped.append(book.name)
                    continue
                }
                let existed = try !connection.query("SELECT 1 FROM books WHERE source_url = ?1 AND url = ?2",
                                                    purpose: "finding book \(book.url)", bindings: [book.sourceURL, book.url]) {
                    (_) throws(LibraryError) in true
                }.isEmpty
                let stored = try Self.upsertBook(
                    source: source, url: book.url, name: book.name, author: book.author, intro: book.intro, kind: book.kind,
                    coverURL: book.coverURL, tocURL: book.tocURL, variables: book.variables, stamp: stamp, path: path, connection)
                if existed { summary.updated += 1 } else { summary.added.append(stored.id) }
                guard let progress = book.progress else { continue }
                let current = try connection.query("""
                    SELECT chapter_index, chapter_position FROM reading_progress WHERE book_id = ?1
                    """, purpose: "reading the progress of book \(stored.id)", bindings: [stored.id]) {
                    (row) throws(LibraryError) in (index: row.int(0), position: row.int(1))
                }.first
                if let current, !(progress.chapterIndex > current.index
                                  || (progress.chapterIndex == current.index && progress.chapterPosition > current.position)) {
                    continue
                }
                try connection.run("""
                    INSERT INTO reading_progress (book_id, chapter_index, chapter_position, chapter_title, read_at)
                    VALUES (?1, ?2, ?3, ?4, ?5)
                    ON CONFLICT (book_id) DO UPDATE SET chapter_index = excluded.chapter_index,
                        chapter_position = excluded.chapter_position, chapter_title = excluded.chapter_title,
                        read_at = excluded.read_at
                    """, purpose: "restoring the reading progress of book \(stored.id)",
                    bindings: [stored.id, progress.chapterIndex, progress.chapterPosition, progress.chapterTitle,
                               Self.milliseconds(progress.readAt)])
                summary.progressTaken += 1
            }
            try beforeCommit()
            return summary
        }
    }
}
