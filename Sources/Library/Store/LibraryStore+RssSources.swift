import Foundation

extension LibraryStore {
    // MARK: - The RSS sources table

    /// Every RSS source the library keeps, by URL, with their JSON exactly as saved.
    public func storedRssSources() throws(LibraryError) -> [RssSourceRecord] {
        try database.query("SELECT url, name, json FROM rss_sources ORDER BY url", purpose: "listing RSS sources") {
            (row) throws(LibraryError) in RssSourceRecord(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2))
        }
    }

    /// The RSS source with this `sourceUrl`, nil when the library has none.
    public func storedRssSource(url: String) throws(LibraryError) -> RssSourceRecord? {
        try database.query("SELECT url, name, json FROM rss_sources WHERE url = ?1", purpose: "reading RSS source \(url)",
                           bindings: [url]) { (row) throws(LibraryError) in
            RssSourceRecord(sourceURL: row.text(0), sourceName: row.text(1), json: row.text(2))
        }.first
    }

    /// Adds these RSS sources, or replaces the name and JSON of those kept under the same URL, in one transaction.
    public func saveRssSources(_ sources: [RssSourceRecord]) throws(LibraryError) {
        let stamp = Self.milliseconds(now())
        try database.transaction("saving \(sources.count) RSS sources") { (connection) throws(LibraryError) in
            try Self.saveRssSources(sources, stamp: stamp, connection)
        }
    }

    /// `saveRssSources` inside a transaction the caller holds (a backup's restore).
    static func saveRssSources(_ sources: [RssSourceRecord], stamp: Int64,
                               _ connection: borrowing SQLiteConnection) throws(LibraryError) {
        let save = try connection.prepare("""
            INSERT INTO rss_sources (url, name, json, updated_at) VALUES (?1, ?2, ?3, ?4)
            ON CONFLICT (url) DO UPDATE SET name = excluded.name, json = excluded.json, updated_at = excluded.updated_at
            WHERE name IS NOT excluded.name OR json IS NOT excluded.json
            """, purpose: "saving RSS sources")
        for source in sources {
            try save.run([source.sourceURL, source.sourceName, source.json, stamp])
        }
    }

    /// Deletes the RSS sources with these URLs (those the library does not keep are ignored), in one transaction.
    public func deleteRssSources(urls: [String]) throws(LibraryError) {
        try database.transaction("deleting \(urls.count) RSS sources") { (connection) throws(LibraryError) in
            for url in urls {
                try connection.run("DELETE FROM rss_sources WHERE url = ?1", purpose: "deleting RSS source \(url)", bindings: [url])
            }
        }
    }
}
