/// The per-step globals a snippet sees besides `result` and `src`: what Legado binds for the rule or URL
/// being evaluated. A name whose value is nil is still defined (as `null`), so `if (key)` works everywhere.
public struct ScriptBindings: Sendable, Equatable {
    /// `key`: the search word (search URLs).
    public var key: String?
    /// `page`: the page number (search and explore URLs).
    public var page: Int?
    /// `baseUrl`: the URL of the page the rule runs on (or the URL being built).
    public var baseURL: String
    /// `book`.
    public var book: ScriptBook?
    /// `chapter`.
    public var chapter: ScriptChapter?
    /// `title`: the chapter's title (content rules).
    public var title: String?
    /// `nextChapterUrl`: the next chapter's URL (content rules).
    public var nextChapterURL: String?

    /// Creates bindings.
    public init(key: String? = nil, page: Int? = nil, baseURL: String = "", book: ScriptBook? = nil,
                chapter: ScriptChapter? = nil, title: String? = nil, nextChapterURL: String? = nil) {
        self.key = key
        self.page = page
        self.baseURL = baseURL
        self.book = book
        self.chapter = chapter
        self.title = title
        self.nextChapterURL = nextChapterURL
    }
}
