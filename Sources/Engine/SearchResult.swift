/// One book on a search results page.
public struct SearchResult: Sendable, Equatable, Codable {
    /// Book title.
    public var name: String
    /// Author, "" when the rule is absent or found nothing.
    public var author: String
    /// Blurb, paragraphs joined by "\n".
    public var intro: String
    /// Categories and tags, comma-separated.
    public var kind: String
    /// Title of the newest chapter.
    public var lastChapter: String
    /// Last update as the site writes it.
    public var updateTime: String
    /// Absolute URL of the book page.
    public var bookURL: String
    /// Absolute URL of the cover image, "" when none.
    public var coverURL: String
    /// Word count as the site writes it.
    public var wordCount: String
    /// `@put` variables stored while reading this result, carried on to the book page.
    public var variables: [String: String]

    /// Creates a result.
    public init(name: String, author: String = "", intro: String = "", kind: String = "", lastChapter: String = "",
                updateTime: String = "", bookURL: String, coverURL: String = "", wordCount: String = "",
                variables: [String: String] = [:]) {
        self.name = name
        self.author = author
        self.intro = intro
        self.kind = kind
        self.lastChapter = lastChapter
        self.updateTime = updateTime
        self.bookURL = bookURL
        self.coverURL = coverURL
        self.wordCount = wordCount
        self.variables = variables
    }
}
