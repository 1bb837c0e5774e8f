import BookRuleJSON

/// Every source of one file, of both of Legado's kinds: book sources and RSS sources (订阅源). Legado's own
/// files and backups keep them apart, but collections shared online mix them; an object is an RSS source when
/// it has `sourceUrl` and `sourceName` and no `bookSourceUrl` (`RssSource.isRssSource`), else a book source.
/// Each keeps its place in the file (`SourceOrigin.index`), so messages name the entry as the file has it.
public struct SourceFile: Sendable {
    /// The book sources, in file order (an array element that is not an object is one, with its problem).
    public let bookSources: [BookSource]
    /// The RSS sources, in file order.
    public let rssSources: [RssSource]

    /// Reads the file at `path` (one source object or an array of them).
    public static func load(contentsOf path: String) throws(SourceFileError) -> SourceFile {
        let bytes: [UInt8]
        do {
            bytes = try LocalFile.read(path)
        } catch {
            throw SourceFileError.unreadable(path: path, reason: error.reason)
        }
        return try load(bytes: bytes, path: path)
    }

    /// Reads `bytes` (named `path` in messages).
    public static func load(bytes: [UInt8], path: String) throws(SourceFileError) -> SourceFile {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw SourceFileError.syntax(path: path, error: error)
        }
        switch root.value {
        case .object(let object):
            let origin = SourceOrigin(path: path, index: nil)
            if RssSource.isRssSource(object) {
                return SourceFile(bookSources: [], rssSources: [RssSource(object: object, location: root.location, origin: origin)])
            }
            return SourceFile(bookSources: [BookSource(object: object, location: root.location, origin: origin)], rssSources: [])
        case .array(let items):
            if items.isEmpty { throw SourceFileError.empty(path: path) }
            var books: [BookSource] = []
            var feeds: [RssSource] = []
            for (index, item) in items.enumerated() {
                let origin = SourceOrigin(path: path, index: index)
                guard case .object(let object) = item.value else {
                    books.append(BookSource(invalid: item, origin: origin))
                    continue
                }
                if RssSource.isRssSource(object) {
                    feeds.append(RssSource(object: object, location: item.location, origin: origin))
                } else {
                    books.append(BookSource(object: object, location: item.location, origin: origin))
                }
            }
            return SourceFile(bookSources: books, rssSources: feeds)
        default:
            throw SourceFileError.notASource(path: path, location: root.location, found: root.value.typeName)
        }
    }
}
