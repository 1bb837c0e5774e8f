import Foundation

/// A book as the library holds it.
public struct StoredBook: Sendable, Equatable, Codable {
    /// The library's id for the book (stable across updates).
    public var id: Int64
    /// The source's `bookSourceUrl`.
    public var sourceURL: String
    /// The source's name.
    public var sourceName: String
    /// The book page's URL.
    public var url: String
    /// Book title.
    public var name: String
    /// Author.
    public var author: String
    /// Blurb.
    public var intro: String
    /// Categories and tags, comma-separated.
    public var kind: String
    /// Cover image URL, "" when none.
    public var coverURL: String
    /// Table of contents URL.
    public var tocURL: String
    /// `@put` variables from the book page, carried on to the TOC and chapters.
    public var variables: [String: String]
    /// When the book was first stored.
    public var createdAt: Date
    /// When its metadata last changed.
    public var updatedAt: Date
    /// Chapters (volume headings not counted), including those no longer in the TOC.
    public var chapterCount: Int
    /// Chapters saved.
    public var doneCount: Int
    /// Chapters whose last attempt failed and that have no text.
    public var failedCount: Int
}
