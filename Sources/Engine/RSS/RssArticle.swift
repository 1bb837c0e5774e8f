/// One article of an RSS source's list (Legado's `RssArticle`): what a feed item or a `ruleArticles` element
/// gave.
public struct RssArticle: Sendable, Equatable, Codable {
    /// The title (an element without one is left out of the list, as Legado does).
    public var title: String
    /// The article's URL, absolute when the feed or page gave a resolvable one.
    public var link: String
    /// The publication date as written (not parsed: Legado shows it as the site wrote it).
    public var pubDate: String?
    /// The description as written (often markup); nil when the source has no `ruleDescription`, in which
    /// case Legado reads the article's page instead.
    public var description: String?
    /// The picture: from `ruleImage`, or in a feed the enclosure, `media:content`, `media:thumbnail`, or the
    /// first `<img>` of the description or content.
    public var image: String?
    /// The name of the sort the article was listed under.
    public var sort: String
    /// The source's URL (Legado's `origin`), which a relative link resolves against.
    public var origin: String
    /// The full text a feed carried (`content:encoded`, Atom's `content`), if any; not written in JSON lists.
    public var content: String?
    /// `@put` values the article's rules stored, for `ruleContent` to `@get`.
    public var variables: [String: String]

    /// Creates an article.
    public init(title: String, link: String, pubDate: String? = nil, description: String? = nil, image: String? = nil,
                sort: String = "", origin: String = "", content: String? = nil, variables: [String: String] = [:]) {
        self.title = title
        self.link = link
        self.pubDate = pubDate
        self.description = description
        self.image = image
        self.sort = sort
        self.origin = origin
        self.content = content
        self.variables = variables
    }

    private enum CodingKeys: String, CodingKey {
        case title, link, pubDate, description, image, sort
    }

    /// Reads an article as `encode(to:)` writes it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        title = try container.decode(String.self, forKey: .title)
        link = try container.decode(String.self, forKey: .link)
        pubDate = try container.decodeIfPresent(String.self, forKey: .pubDate)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        image = try container.decodeIfPresent(String.self, forKey: .image)
        sort = try container.decodeIfPresent(String.self, forKey: .sort) ?? ""
        origin = ""
        content = nil
        variables = [:]
    }

    /// Writes the six fields of `bookrule rss --json`, every one present (null when unknown).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(title, forKey: .title)
        try container.encode(link, forKey: .link)
        try container.encode(pubDate, forKey: .pubDate)
        try container.encode(description, forKey: .description)
        try container.encode(image, forKey: .image)
        try container.encode(sort, forKey: .sort)
    }
}
