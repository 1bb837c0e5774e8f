/// What a book page says about a book.
public struct BookInfo: Sendable, Equatable, Codable {
    /// The book page's URL (after redirects).
    public var url: String
    /// Book title.
    public var name: String
    /// Author.
    public var author: String
    /// Blurb, paragraphs joined by "\n".
    public var intro: String
    /// Categories and tags, comma-separated.
    public var kind: String
    /// Title of the newest chapter.
    public var lastChapter: String
    /// Last update as the site writes it.
    public var updateTime: String
    /// Absolute cover image URL, "" when none.
    public var coverURL: String
    /// Absolute URL of the table of contents (the book page itself when the source has no tocUrl rule).
    public var tocURL: String
    /// Word count as the site writes it.
    public var wordCount: String
    /// `@put` variables, carried on to the TOC and chapters.
    public var variables: [String: String]
    /// Rules that failed, and other things worth telling the source's author.
    public var warnings: [String]
}
