/// What `SourceCheck` runs and how strict it is.
public struct CheckOptions: Sendable {
    /// The search keyword; defaults to the source's `ruleSearch.checkKeyWord`.
    public var keyword: String?
    /// A book page to check instead of the first search result.
    public var bookURL: String?
    /// Chapter text shorter than this many characters fails the content checks.
    public var minimumContentLength: Int
    /// Chapters to check instead of the TOC's first and last (a source with one saved chapter can pass).
    public var chapterURLs: [String]

    /// Creates options.
    public init(keyword: String? = nil, bookURL: String? = nil, minimumContentLength: Int = 50, chapterURLs: [String] = []) {
        self.keyword = keyword
        self.bookURL = bookURL
        self.minimumContentLength = minimumContentLength
        self.chapterURLs = chapterURLs
    }
}
