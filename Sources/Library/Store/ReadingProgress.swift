import Foundation

/// Where a reader is in a book: the chapter (its TOC position), the place in it, and when it was read, as a
/// reading client reports it (Legado's `BookProgress`).
public struct ReadingProgress: Sendable, Equatable, Codable {
    /// The chapter's position in the TOC (0 for the first entry, volume headings counted).
    public var chapterIndex: Int
    /// The place within the chapter, in the client's units (Legado's: characters).
    public var chapterPosition: Int
    /// The chapter's title as the client showed it.
    public var chapterTitle: String
    /// When the reader was there.
    public var readAt: Date

    /// Creates a progress record.
    public init(chapterIndex: Int, chapterPosition: Int, chapterTitle: String, readAt: Date) {
        self.chapterIndex = chapterIndex
        self.chapterPosition = chapterPosition
        self.chapterTitle = chapterTitle
        self.readAt = readAt
    }
}
