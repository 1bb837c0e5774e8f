import BookRuleEngine
import BookRuleLibrary

extension ServeLibrary {
    /// The RSS source the library keeps under `url` (its `sourceUrl`), compiled; nil when there is none, or
    /// when what is kept no longer reads as an RSS source.
    package func rssSource(url: String) throws(LibraryError) -> RssSource? {
        guard let record = try store.storedRssSource(url: url) else { return nil }
        return try? SourceFile.load(bytes: Array(record.json.utf8), path: record.sourceName).rssSources.first
    }
}
