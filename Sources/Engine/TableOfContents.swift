/// A book's whole table of contents, gathered over every TOC page.
public struct TableOfContents: Sendable, Equatable, Codable {
    /// Chapters in reading order, de-duplicated by URL.
    public var chapters: [Chapter]
    /// Every TOC page fetched, in order.
    public var pages: [String]
    /// Page-cap hits, duplicate chapters dropped, rules that failed.
    public var warnings: [String]
    /// How many entries the rules found whose URL was already listed (a "latest chapters" block the rules did
    /// not skip, usually); they are not in `chapters`.
    public var droppedDuplicates: Int
    /// Why the list stops short, when a later TOC page could not be read: the chapters are those of the
    /// pages before it. Nil when every page was read.
    public var incomplete: String?
    /// Chapter URLs that are not http(s) links (`javascript:cid(1)`): kept in the list, but no fetch can follow them.
    public var nonHTTPChapterURLs: Int

    /// Creates a table of contents.
    public init(chapters: [Chapter], pages: [String], warnings: [String], droppedDuplicates: Int,
                incomplete: String? = nil, nonHTTPChapterURLs: Int = 0) {
        self.chapters = chapters
        self.pages = pages
        self.warnings = warnings
        self.droppedDuplicates = droppedDuplicates
        self.incomplete = incomplete
        self.nonHTTPChapterURLs = nonHTTPChapterURLs
    }

    private enum CodingKeys: String, CodingKey {
        case chapters, pages, warnings, droppedDuplicates, incomplete, nonHTTPChapterURLs
    }

    /// Decodes a table of contents; lists saved before `incomplete` and `nonHTTPChapterURLs` existed read as complete.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        chapters = try container.decode([Chapter].self, forKey: .chapters)
        pages = try container.decode([String].self, forKey: .pages)
        warnings = try container.decode([String].self, forKey: .warnings)
        droppedDuplicates = try container.decode(Int.self, forKey: .droppedDuplicates)
        incomplete = try container.decodeIfPresent(String.self, forKey: .incomplete)
        nonHTTPChapterURLs = try container.decodeIfPresent(Int.self, forKey: .nonHTTPChapterURLs) ?? 0
    }
}
