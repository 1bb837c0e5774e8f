/// One page of an RSS source's article list.
public struct RssArticlePage: Sendable, Equatable, Codable {
    /// The articles, in the order Legado lists them (reversed when `ruleArticles` starts with `-`).
    public var articles: [RssArticle]
    /// The next page's URL: from `ruleNextPage`, or for `PAGE` the sort's URL (fetched with the next page
    /// number); nil when there is none.
    public var nextPage: String?
    /// The URL fetched (after redirects).
    public var url: String
    /// Whether the page was read as an RSS/Atom feed (no `ruleArticles`) rather than by the rules.
    public var readAsFeed: Bool
    /// Rules that failed for some articles, and other things the source's author should know.
    public var warnings: [String]

    /// Creates a page.
    public init(articles: [RssArticle], nextPage: String?, url: String, readAsFeed: Bool, warnings: [String]) {
        self.articles = articles
        self.nextPage = nextPage
        self.url = url
        self.readAsFeed = readAsFeed
        self.warnings = warnings
    }

    private enum CodingKeys: String, CodingKey {
        case articles, nextPage
    }

    /// Reads a page as `encode(to:)` writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        articles = try container.decode([RssArticle].self, forKey: .articles)
        nextPage = try container.decodeIfPresent(String.self, forKey: .nextPage)
        url = ""
        readAsFeed = false
        warnings = []
    }

    /// Writes `{"articles": […], "nextPage": URL or null}`, the shape of `bookrule rss --json`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(articles, forKey: .articles)
        try container.encode(nextPage, forKey: .nextPage)
    }
}
