import BookRuleDocument

/// The clean text of one chapter.
///
/// - Note: pictures of text chapters are part of `text` (image lines), and the JSON form lists them too.
public struct ChapterContent: Sendable, Equatable, Codable {
    /// The chapter's first page URL.
    public var url: String
    /// The title from `ruleContent.title` when the source has one, else nil.
    public var title: String?
    /// Paragraphs joined by "\n": no tags, no entities, no script text, trimmed, ads removed by replaceRegex.
    /// A text source's pictures are lines of their own in `ImageLine` form (`<img src="ABSOLUTE_URL">`).
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
    /// What web-font decoding did, when the chapter's pages draw their text with a web font; nil otherwise.
    public var fonts: WebFontReport?

    /// The pictures of a text chapter, in order: the URLs of the image lines in `text`.
    public var imageURLs: [String] {
        ImageLine.all(in: text).map(\.url)
    }

    fileprivate enum CodingKeys: String, CodingKey {
        case url, title, text, pages, warnings, images, fonts
    }
}

extension ChapterContent {
    /// Reads a chapter as `encode(to:)` writes it (`images` is derived from `text`, so it is not read).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url = try container.decode(String.self, forKey: .url)
        title = try container.decodeIfPresent(String.self, forKey: .title)
        text = try container.decode(String.self, forKey: .text)
        pages = try container.decode([String].self, forKey: .pages)
        warnings = try container.decode([String].self, forKey: .warnings)
        fonts = try container.decodeIfPresent(WebFontReport.self, forKey: .fonts)
    }

    /// Writes the chapter, and, when its text shows pictures, `images`: one `{"url": …}` per image line (with
    /// `"options"` when it has Legado's), so JSON readers need not parse the lines. A chapter without
    /// pictures is written exactly as before; `fonts` only when a web font drew the text.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(url, forKey: .url)
        try container.encodeIfPresent(title, forKey: .title)
        try container.encode(text, forKey: .text)
        try container.encode(pages, forKey: .pages)
        try container.encode(warnings, forKey: .warnings)
        let images = ImageLine.all(in: text)
        if !images.isEmpty {
            try container.encode(images.map { ImageJSON(url: $0.url, options: $0.options.isEmpty ? nil : String($0.options.dropFirst())) },
                                 forKey: .images)
        }
        try container.encodeIfPresent(fonts, forKey: .fonts)
    }

    /// One picture in the JSON form.
    private struct ImageJSON: Encodable {
        let url: String
        let options: String?
    }
}
