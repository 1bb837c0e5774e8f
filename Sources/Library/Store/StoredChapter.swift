import Foundation

/// A chapter as the library holds it (without its text, which `LibraryStore.text(bookID:url:)` reads).
public struct StoredChapter: Sendable, Equatable, Codable {
    /// The book's id.
    public var bookID: Int64
    /// Place in the book, from 0: TOC order, then chapters no longer listed.
    public var position: Int
    /// The chapter's identity in the book: its URL without `#fragment`, or `heading:<n>:<title>` for the n-th
    /// heading of that title without a URL.
    public var key: String
    /// Chapter title.
    public var title: String
    /// The URL as the TOC last gave it ("" for a volume heading without a link).
    public var url: String
    /// Whether this is a volume heading.
    public var isVolume: Bool
    /// Whether the last merged TOC lists it (false: it vanished from the site's TOC; its text is kept).
    public var inTOC: Bool
    /// Pending, done or failed.
    public var state: ChapterState
    /// Fetch attempts so far, successful or not.
    public var attempts: Int
    /// The last failure's message; nil after a successful save.
    public var lastError: String?
    /// When the text was saved.
    public var fetchedAt: Date?
    /// Characters in the saved text, 0 when none.
    public var textLength: Int
    /// The source the saved text came from (`bookSourceUrl`); nil when no text is saved.
    public var sourceURL: String? = nil
}
