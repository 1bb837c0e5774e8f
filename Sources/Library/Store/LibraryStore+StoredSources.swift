import Foundation

extension LibraryStore {
    // MARK: - The sources table

    /// Every source the library keeps (those of its books, and those saved with `saveSources`), by URL,
    /// with their JSON exactly as saved.
    public func storedSources() throws(LibraryError) -> [BookSourceRecord] {
        try database.query("SELECT url, name, json FROM sources ORDER BY url", purpose: "listing sources") {
            (row) throws(LibraryError) in BookSourceRecord(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2))
        }
    }

    /// The source with this `bookSourceUrl`, nil when the library has none.
    public func storedSource(url: String) throws(LibraryError) -> BookSourceRecord? {
        try database.query("SELECT url, name, json FROM sources WHERE url = ?1", purpose: "reading source \(url)",
                           bindings: [url]) { (row) throws(LibraryError) in
            BookSourceRecord(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2))
        }.first
    }

    /// Adds these sources, or replaces the name and JSON of those already kept under the same URL, in one
    /// transaction (the books on them keep them).
    public func saveSources(_ sources: [BookSourceRecord]) throws(LibraryError) {
        let stamp = Self.milliseconds(now())
        try database.transaction("saving \(sources.count) sources") { (connection) throws(LibraryError) in
            let save = try connection.prepare("""
                INSERT INTO sources (url, name, json, updated_at) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (url) DO UPDATE SET name = excluded.name, json = excluded.json, updated_at = excluded.updated_at
                WHERE name IS NOT excluded.name OR json IS NOT excluded.json
                """, purpose: "saving sources")
            for source in sources {
                try save.run([source.sourceURL, source.sourceName, source.json, stamp])
            }
        }
    }

    /// Deletes the sources with these URLs, except those a saved book is on (its updates need them); returns
    /// the URLs kept for that reason. One transaction.
    @discardableResult
    public func deleteSources(urls: [String]) throws(LibraryError) -> [String] {
        try database.transaction("deleting \(urls.count) sources") { (connection) throws(LibraryError) in
            var kept: [String] = []
            for url in urls {
                let used = try connection.query("""
                    SELECT 1 FROM books WHERE source_url = ?1 UNION SELECT 1 FROM book_sources WHERE source_url = ?1
                    """, purpose: "deleting source \(url)", bindings: [url]) { (_) throws(LibraryError) in true }
                if used.isEmpty {
                    try connection.run("DELETE FROM sources WHERE url = ?1", purpose: "deleting source \(url)", bindings: [url])
                } else {
                    kept.append(url)
                }
            }
            return kept
        }
    }
}
