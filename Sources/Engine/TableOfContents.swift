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
}
