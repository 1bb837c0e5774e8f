import Foundation

/// A picture inside a text chapter, written as a line of its own: `<img src="ABSOLUTE_URL">`, Legado's
/// convention for pictures in chapter text (what its `HtmlFormatter.formatKeepImg` leaves in the text), so
/// stored chapters read the same in both. The URL is absolute; Legado's `,{options}` (request options a script
/// may add, such as headers) follow it inside the quotes. Any other line of the text is text.
///
/// Written by `HTMLTextFormatter.contentText` and read back by the exporters (an EPUB embeds the picture, a
/// TXT file keeps its URL), the CLI's chapter output and JSON, and `--convert` (which leaves these lines alone).
public struct ImageLine: Sendable, Equatable, Hashable {
    /// The picture's absolute URL.
    public var url: String
    /// Legado's request options after the URL, with their leading comma (`,{"headers":{…}}`), or "".
    public var options: String

    /// A picture at `url`, with Legado's `,{options}` when it has some.
    public init(url: String, options: String = "") {
        self.url = url
        self.options = options
    }

    /// What marks an image line: the whole line is `prefix` + URL (and options) + `suffix`.
    static let prefix = "<img src=\""
    static let suffix = "\">"

    /// The line itself. Characters that cannot stand in a URL and would end the line or the attribute (quotes,
    /// angle brackets, whitespace) are percent-encoded in the URL; line breaks in the options become spaces.
    public var line: String {
        var encoded = ""
        encoded.reserveCapacity(url.utf8.count)
        for scalar in url.unicodeScalars {
            switch scalar {
            case "\"": encoded += "%22"
            case "<": encoded += "%3C"
            case ">": encoded += "%3E"
            case " ": encoded += "%20"
            case "\t", "\n", "\r", "\u{0C}": break
            default: encoded.unicodeScalars.append(scalar)
            }
        }
        let flatOptions = String(options.map { $0.isNewline ? " " : $0 })
        return Self.prefix + encoded + flatOptions + Self.suffix
    }

    /// Reads `line` (surrounding whitespace, including the U+3000 indentation sites use, ignored); nil for a
    /// line that is not exactly an image line.
    public init?<Line: StringProtocol>(line: Line) {
        let trimmed = String(line).trimmingParagraphSpace()
        guard trimmed.hasPrefix(Self.prefix), trimmed.hasSuffix(Self.suffix),
              trimmed.utf8.count > Self.prefix.utf8.count + Self.suffix.utf8.count
        else { return nil }
        let inner = trimmed.dropFirst(Self.prefix.count).dropLast(Self.suffix.count)
        let (url, options) = Self.splittingOptions(String(inner))
        guard !url.isEmpty, !url.contains("\"") else { return nil }
        self.init(url: url, options: options)
    }

    /// Whether `text` holds an image line at all (a quick test before splitting it into lines).
    public static func mayOccur(in text: String) -> Bool {
        text.contains(prefix)
    }

    /// The pictures of `text` (chapter text, lines joined by "\n"), in order, repeats included.
    public static func all(in text: String) -> [ImageLine] {
        guard mayOccur(in: text) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { ImageLine(line: $0) }
    }

    /// `value` split into the address and Legado's `,{options}` after it: a comma followed by `{` (also as
    /// `%7B`, which libxml2's serializer writes for `{` in a `src` attribute), the options percent-decoded then.
    static func splittingOptions(_ value: String) -> (url: String, options: String) {
        let split = URLWithOptions(value)
        return (split.address, split.optionsSuffix)
    }
}
