import BookRuleEngine

/// The models a check extracted, stored as `Fixtures/<source>/expected.json` so a later run notices when the
/// site (or the source) changed.
public struct Snapshot: Sendable, Codable, Equatable {
    /// The keyword searched for.
    public var keyword: String?
    /// The search results (at most 10).
    public var search: [SearchResult]?
    /// The book page.
    public var book: BookSummary?
    /// The table of contents.
    public var chapters: [Chapter]?
    /// The first chapter's text.
    public var firstChapter: ChapterContent?
    /// The last chapter's text.
    public var lastChapter: ChapterContent?

    /// An empty snapshot.
    public init() {}
}

/// `BookInfo` without what does not belong in a snapshot (warnings).
public struct BookSummary: Sendable, Codable, Equatable {
    public var url, name, author, intro, kind, lastChapter, updateTime, coverURL, tocURL, wordCount: String

    init(_ info: BookInfo) {
        url = info.url
        name = info.name
        author = info.author
        intro = info.intro
        kind = info.kind
        lastChapter = info.lastChapter
        updateTime = info.updateTime
        coverURL = info.coverURL
        tocURL = info.tocURL
        wordCount = info.wordCount
    }
}

/// How a run's snapshot compares with the stored one.
public struct SnapshotComparison: Sendable, Codable, Equatable {
    /// Where the stored snapshot is.
    public var path: String
    /// Whether they are equal.
    public var matches: Bool
    /// A line diff of the two JSON texts (`-` stored, `+` now), at most 200 lines.
    public var diff: [String]
    /// Whether this run wrote the stored snapshot (`--update`), so it matches by construction.
    public var written: Bool

    /// A comparison.
    public init(path: String, matches: Bool, diff: [String], written: Bool = false) {
        self.path = path
        self.matches = matches
        self.diff = diff
        self.written = written
    }

    /// Reads a comparison; reports written before `written` existed read as not written.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        path = try container.decode(String.self, forKey: .path)
        matches = try container.decode(Bool.self, forKey: .matches)
        diff = try container.decode([String].self, forKey: .diff)
        written = try container.decodeIfPresent(Bool.self, forKey: .written) ?? false
    }
}
