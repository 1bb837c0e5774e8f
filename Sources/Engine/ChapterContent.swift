/// The clean text of one chapter.
public struct ChapterContent: Sendable, Equatable, Codable {
    /// The chapter's first page URL.
    public var url: String
    /// The title from `ruleContent.title` when the source has one, else nil.
    public var title: String?
    /// Paragraphs joined by "\n": no tags, no entities, no script text, trimmed, ads removed by replaceRegex.
    public var text: String
    /// Every page fetched for this chapter, in order.
    public var pages: [String]
    /// Page-cap hits, rules that failed.
    public var warnings: [String]
    /// For audio (type 1) and image (type 2) sources: the media files the content rule linked, absolute, in
    /// order (see `MediaLinks`); empty for text sources. Not part of snapshots.
    public var mediaURLs: [String] = []
    /// When `text` is empty, which rule emptied it: the content rule matched nothing, or `replaceRegex`
    /// removed everything it found. Not part of snapshots.
    public var emptyReason: String?

    private enum CodingKeys: String, CodingKey {
        case url, title, text, pages, warnings
    }
}
