import Foundation

/// A source a book of the library is known on (`LibraryStore.knownSources`).
public struct KnownSource: Sendable, Equatable, Codable {
    /// The source's `bookSourceUrl`.
    public var sourceURL: String
    /// The source's name.
    public var sourceName: String
    /// The source's JSON, so the book can be read there without the original file.
    public var json: String
    /// The book's page on that source.
    public var bookURL: String
    /// Book variables for that source (`@put` values).
    public var variables: [String: String]
    /// Entries in its TOC when last checked; nil when never checked.
    public var tocLength: Int?
    /// Its newest chapter's title when last checked.
    public var latestChapter: String?
    /// When it was last checked.
    public var checkedAt: Date?
    /// Whether this is the source the book is fetched from now.
    public var isCurrent: Bool
}
