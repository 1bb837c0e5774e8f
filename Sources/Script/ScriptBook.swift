/// The book a script works on, as Legado's `book` object shows it.
public struct ScriptBook: Sendable, Equatable {
    /// `book.name`.
    public var name: String
    /// `book.author`.
    public var author: String
    /// `book.bookUrl`: the book's info page.
    public var bookURL: String
    /// `book.tocUrl`: the TOC page ("" when it is the info page).
    public var tocURL: String
    /// `book.origin`: the source's key.
    public var origin: String
    /// `book.kind`.
    public var kind: String
    /// `book.intro`.
    public var intro: String
    /// `book.coverUrl`.
    public var coverURL: String
    /// `book.latestChapterTitle`.
    public var latestChapterTitle: String
    /// `book.wordCount`.
    public var wordCount: String
    /// `book.durChapterTitle`: the chapter being read (the one whose content is fetched).
    public var durChapterTitle: String
    /// `book.durChapterIndex`.
    public var durChapterIndex: Int
    /// `book.totalChapterNum`.
    public var totalChapterNum: Int

    /// Creates a book; every field but the name may be left empty.
    public init(name: String, author: String = "", bookURL: String = "", tocURL: String = "", origin: String = "",
                kind: String = "", intro: String = "", coverURL: String = "", latestChapterTitle: String = "",
                wordCount: String = "", durChapterTitle: String = "", durChapterIndex: Int = 0,
                totalChapterNum: Int = 0) {
        self.name = name
        self.author = author
        self.bookURL = bookURL
        self.tocURL = tocURL
        self.origin = origin
        self.kind = kind
        self.intro = intro
        self.coverURL = coverURL
        self.latestChapterTitle = latestChapterTitle
        self.wordCount = wordCount
        self.durChapterTitle = durChapterTitle
        self.durChapterIndex = durChapterIndex
        self.totalChapterNum = totalChapterNum
    }
}
