import Foundation
import BookRuleDocument
import BookRuleEngine

/// A book ready to export: its metadata and its saved chapters' text, independent of where they came from.
public struct ExportBook: Sendable, Equatable {
    /// Book title.
    public var title: String
    /// Author ("" when unknown).
    public var author: String
    /// Blurb, paragraphs joined by "\n" ("" when none).
    public var intro: String
    /// BCP 47 language tag of the text, "zh" unless the source says otherwise.
    public var language: String
    /// Stable unique identifier, a `urn:uuid:` URN by default (see `identifier(sourceURL:bookURL:)`).
    public var identifier: String
    /// URL of the book source the book was scraped with ("" when unknown).
    public var sourceURL: String
    /// URL of the book's page on the site ("" when unknown).
    public var bookURL: String
    /// Cover image, when the source gives one.
    public var cover: ExportCover?
    /// Chapters and volume headings in reading order.
    public var chapters: [ExportChapter]

    /// Creates a book to export; `identifier` defaults to `identifier(sourceURL:bookURL:)`.
    public init(title: String, author: String = "", intro: String = "", language: String = "zh",
                identifier: String? = nil, sourceURL: String = "", bookURL: String = "",
                cover: ExportCover? = nil, chapters: [ExportChapter]) {
        self.title = title
        self.author = author
        self.intro = intro
        self.language = language
        self.identifier = identifier ?? Self.identifier(sourceURL: sourceURL, bookURL: bookURL)
        self.sourceURL = sourceURL
        self.bookURL = bookURL
        self.cover = cover
        self.chapters = chapters
    }

    /// A stable identifier for the book scraped from `bookURL` with the source at `sourceURL`: the same pair
    /// always gives the same `urn:uuid:…` (two FNV-1a 64 hashes shaped as an RFC 9562 version 8 UUID), so
    /// re-exporting a book updates it in readers' libraries instead of adding a copy.
    public static func identifier(sourceURL: String, bookURL: String) -> String {
        let key = Array(sourceURL.utf8) + [0] + Array(bookURL.utf8)
        let high = fnv1a64(key, basis: 0xcbf2_9ce4_8422_2325)
        let low = fnv1a64(Array("bookrule".utf8) + key, basis: high)
        // Version 8 (custom) in the top nibble of byte 6, variant 0b10 in the top bits of byte 8.
        let versioned = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_8000
        let varianted = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        let hex = hexDigits(versioned, count: 16) + hexDigits(varianted, count: 16)
        let characters = Array(hex)
        let groups = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }
        return "urn:uuid:" + groups.joined(separator: "-")
    }

    private static func fnv1a64(_ bytes: [UInt8], basis: UInt64) -> UInt64 {
        var hash = basis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func hexDigits(_ value: UInt64, count: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: max(0, count - digits.count)) + digits
    }
}

/// One chapter or volume heading of an `ExportBook`.
public struct ExportChapter: Sendable, Equatable {
    /// Chapter or volume title.
    public var title: String
    /// The chapter's text, paragraphs joined by "\n" (usually "" for a volume heading).
    public var text: String
    /// Whether this entry is a volume heading that groups the chapters after it.
    public var isVolume: Bool
    /// Pictures shown after the text, in order (the pages of an image source's chapter).
    public var images: [ExportImage]
    /// The files of the pictures inside `text` (its `ImageLine`s), by URL: an EPUB embeds these where the
    /// line stands; a picture missing here is shown as its URL. TXT always shows the URL.
    public var pictures: [String: ExportImage]

    /// Creates a chapter (or, with `isVolume`, a volume heading).
    public init(title: String, text: String, isVolume: Bool = false, images: [ExportImage] = [],
                pictures: [String: ExportImage] = [:]) {
        self.title = title
        self.text = text
        self.isVolume = isVolume
        self.images = images
        self.pictures = pictures
    }
}

/// A picture file for a chapter, read from disk only while the EPUB is written (a comic's pages together are
/// far larger than memory should hold).
public struct ExportImage: Sendable, Equatable {
    /// The file.
    public var path: String
    /// What the file really is (JPEG, PNG or GIF, complete), from its first and last bytes.
    public var mediaType: String

    /// The picture at `path`; nil when the file cannot be read or is not a complete JPEG, PNG or GIF (an
    /// audio file, a WebP, an error page saved by a site), which an EPUB could not show.
    public init?(path: String) {
        guard case .success(let mediaType)? = Self.check(path: path) else { return nil }
        self.path = path
        self.mediaType = mediaType
    }

    /// The media type of the picture at `path`, or what is wrong with it; nil when it cannot be read.
    static func check(path: String) -> Result<String, ImageStructure.Problem>? {
        guard let file = ImageFileBytes(path: path), file.count > 0 else { return nil }
        return ImageStructure.mediaType(of: file)
    }

    /// The file extension for `mediaType`.
    var fileExtension: String {
        switch mediaType {
        case "image/png": return "png"
        case "image/gif": return "gif"
        default: return "jpg"
        }
    }
}

/// A cover image: the bytes as downloaded and the media type the site declared.
public struct ExportCover: Sendable, Equatable {
    /// The image file's bytes.
    public var bytes: [UInt8]
    /// The media type the site declared (`Content-Type`), possibly wrong or empty.
    public var mediaType: String

    /// Creates a cover from downloaded bytes and the declared media type.
    public init(bytes: [UInt8], mediaType: String = "") {
        self.bytes = bytes
        self.mediaType = mediaType
    }

    /// The media type the bytes really are, when it is one every EPUB reader must show (JPEG, PNG, GIF) and
    /// its structure is whole (see `ImageStructure`: a file that only begins like an image, or a truncated
    /// download, would make the EPUB invalid); nil otherwise (WebP, SVG, an HTML error page…), and the EPUB is
    /// then written without a cover. Decided from the bytes, not from the declared type, which sites often get
    /// wrong.
    public var epubMediaType: String? {
        try? ImageStructure.mediaType(of: InMemoryImageBytes(bytes: bytes)).get()
    }

    /// Why the bytes cannot be a cover, nil when they can.
    var problem: ImageStructure.Problem? {
        if case .failure(let problem) = ImageStructure.mediaType(of: InMemoryImageBytes(bytes: bytes)) { return problem }
        return nil
    }

    /// The file extension for `epubMediaType` ("png", "jpg", "gif"), nil when the EPUB will have no cover.
    var fileExtension: String? {
        switch epubMediaType {
        case "image/png": return "png"
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        default: return nil
        }
    }
}

// MARK: - Text shared by the exporters

/// Labels in the book's language (Chinese for `zh*`, English otherwise).
struct ExportLabels {
    let author: String
    let intro: String
    let contents: String
    let cover: String
    /// What stands before a picture's URL where the picture itself cannot be shown (TXT, a missing file).
    let picture: String
    let untitledBook: String
    let untitledChapter: (Int) -> String

    init(language: String) {
        if language.lowercased().hasPrefix("zh") {
            author = "作者："
            intro = "简介："
            contents = "目录"
            cover = "封面"
            picture = "图片"
            untitledBook = "未命名"
            untitledChapter = { "第\($0)章" }
        } else {
            author = "Author: "
            intro = "Introduction:"
            contents = "Contents"
            cover = "Cover"
            picture = "Picture"
            untitledBook = "Untitled"
            untitledChapter = { "Chapter \($0)" }
        }
    }

    /// The line that stands for a picture not shown: `[图片] URL` (`[Picture] URL` in other languages).
    func pictureLink(_ url: String) -> String {
        "[\(picture)] \(url)"
    }
}

enum ExportText {
    /// `text` without the characters XML 1.0 forbids (C0 controls other than tab and line breaks, U+FFFE,
    /// U+FFFF), the C1 controls and DEL, and the other Unicode noncharacters.
    static func clean(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where XMLText.isAllowed(scalar) {
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// One line: cleaned, line breaks and tabs turned into spaces, trimmed.
    static func line(_ text: String) -> String {
        let flattened = clean(text).unicodeScalars.map { scalar -> Character in
            isLineBreak(scalar) || scalar == "\t" ? " " : Character(scalar)
        }
        return trimmed(String(flattened))
    }

    /// The non-empty paragraphs of `text` (split at any line break), cleaned and trimmed (including the
    /// U+3000 indentation sites put in front of paragraphs).
    static func paragraphs(_ text: String) -> [String] {
        var result: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            let paragraph = trimmed(String(current))
            if !paragraph.isEmpty { result.append(paragraph) }
            current = String.UnicodeScalarView()
        }
        for scalar in clean(text).unicodeScalars {
            if isLineBreak(scalar) { flush() } else { current.append(scalar) }
        }
        flush()
        return result
    }

    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private static func trimmed(_ text: String) -> String {
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
              let last = text.lastIndex(where: { !$0.isWhitespace }) else { return "" }
        return String(text[first...last])
    }
}
