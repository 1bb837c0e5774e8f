import BookRuleEngine
import BookRuleJSON

/// A book read on one source: its page and whole TOC, and how that TOC aligns with a reference (the library's
/// chapters of the book, or the copy a book is fetched from).
public struct BookCopy: Sendable {
    /// The source it was read on.
    public var source: BookSource
    /// Its book page.
    public var info: BookInfo
    /// Its TOC.
    public var chapters: [Chapter]
    /// Whether it is certainly the reference's book.
    public var certainty: CopyCertainty

    /// The source as the library keeps it.
    public var record: BookSourceRecord {
        BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())
    }

    /// The newest chapter's title (volume headings skipped), "" when none.
    public var latestChapter: String { chapters.last { !$0.isVolume }?.title ?? "" }

    /// Reads the book at `bookURL` on `engine`'s source (book page and every TOC page) and judges it against
    /// `reference`. Throws `BookCopyError.emptyTOC` when the TOC lists nothing, and what the engine throws.
    public static func read(engine: SourceEngine, bookURL: String, variables: [String: String] = [:],
                            reference: [(title: String, isVolume: Bool)]) async throws -> BookCopy {
        let info = try await engine.bookInfo(url: bookURL, variables: variables)
        let toc = try await engine.toc(of: info)
        guard !toc.chapters.isEmpty else {
            throw BookCopyError.emptyTOC(sourceName: engine.source.name, url: toc.pages.first ?? info.tocURL)
        }
        let incoming = toc.chapters.map { (title: $0.title, isVolume: $0.isVolume) }
        return BookCopy(source: engine.source, info: info, chapters: toc.chapters,
                        certainty: CopyCertainty(reference: reference, incoming: incoming))
    }

    /// The search result among `results` that is the book `name` by `author`: the same `BookIdentity`, else
    /// a result of that name that gives no author.
    public static func pick(_ results: [SearchResult], name: String, author: String) -> SearchResult? {
        let identity = BookIdentity(name: name, author: author)
        return results.first { BookIdentity(name: $0.name, author: $0.author) == identity }
            ?? results.first { $0.author.isEmpty && BookIdentity(name: $0.name, author: "").name == identity.name }
    }
}

/// Why a copy of a book could not be found, read or recorded.
public enum BookCopyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source's search for the book's name lists no book of that name and author.
    case notListed(sourceName: String, name: String, author: String, results: Int)
    /// None of the `sources` searched found anything for `keyword`.
    case nothingFound(keyword: String, sources: Int)
    /// The copy's TOC rules found no chapters on `url`.
    case emptyTOC(sourceName: String, url: String)
    /// The copy is not certainly the same book (`CopyCertainty.reason`).
    case uncertain(sourceName: String, reason: String)

    /// Whether the search found no such book (a book URL given by hand helps).
    public var isNotListed: Bool {
        if case .notListed = self { return true }
        return false
    }

    /// What happened, naming the source.
    public var description: String {
        switch self {
        case .notListed(let sourceName, let name, let author, let results):
            return "\(sourceName) lists no book \"\(name)\" by \(author.isEmpty ? "anyone" : author) (\(results) result(s))"
        case .nothingFound(let keyword, let sources):
            return "none of the \(sources) source(s) searched found a book for \"\(keyword)\""
        case .emptyTOC(let sourceName, let url):
            return "\(sourceName)'s TOC rules found no chapters on \(url)"
        case .uncertain(let sourceName, let reason):
            return "\(sourceName): \(reason)"
        }
    }
}
