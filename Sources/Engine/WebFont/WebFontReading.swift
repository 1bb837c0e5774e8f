import BookRuleFont
import BookRuleLocking

/// How engines decode the web fonts that draw a page's text (docs/fonts.md): the decoder, and the stylesheets
/// already fetched in this process, so a site's stylesheet costs one request per run, not one per chapter.
/// Fonts themselves are fetched per page (sites serve a new font per page at new URLs), and their decoding is
/// cached by content in the decoder.
public final class WebFontReading: Sendable {
    /// The process's: `FontDecoder.shared`.
    public static let shared = WebFontReading(decoder: .shared)

    /// What `EngineOptions` made in this task use: `shared`, or nil inside a command run with
    /// `--no-font-decoding` (a task-local value, so a command turns it off for every engine it makes).
    @TaskLocal public static var current: WebFontReading? = .shared

    public let decoder: FontDecoder
    /// The most stylesheets kept, and the most a page may link.
    static let keptSheets = 64
    static let linkedSheetsPerPage = 6
    /// The largest stylesheet and font read.
    static let maxSheetBytes = 2 << 20

    private let sheets = Locked([String: String?]())

    public init(decoder: FontDecoder) {
        self.decoder = decoder
    }

    /// The stylesheet at `url`, fetched with `fetch` the first time (nil kept too: a missing sheet is asked for
    /// once).
    func sheet(_ url: String, fetch: () async -> String?) async -> String? {
        if let known = sheets.withLock({ $0[url] }) { return known }
        let text = await fetch()
        sheets.withLock { cache in
            if cache.count >= Self.keptSheets { cache.removeAll() }
            cache[url] = .some(text)
        }
        return text
    }
}
