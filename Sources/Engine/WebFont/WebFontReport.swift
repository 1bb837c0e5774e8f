/// What web-font decoding did for one chapter: each font that drew its text, how many of the characters it
/// draws were changed, and the choices made with low confidence (kept as the best guess, and warned).
public struct WebFontReport: Sendable, Equatable, Codable {
    /// One web font met on the chapter's pages.
    public struct Font: Sendable, Equatable, Codable {
        /// Its CSS `font-family`.
        public var family: String
        /// The URL it was read from (`data:` URLs shortened to their media type).
        public var url: String?
        /// How many distinct code points of the text it draws were decoded.
        public var glyphs: Int
        /// How many of those it draws as another character (and were replaced).
        public var changed: Int
        /// Why it could not be decoded, when it was not.
        public var error: String?
    }

    /// A glyph recognised with low confidence: the text holds `character`, which may be wrong.
    public struct Guess: Sendable, Equatable, Codable {
        /// The code point in the page, as `U+E123`.
        public var codePoint: String
        /// The character chosen.
        public var character: String
        /// The next best character.
        public var runnerUp: String?
        /// The family of the font that draws it.
        public var family: String
    }

    public var fonts: [Font] = []
    public var lowConfidence: [Guess] = []

    public init(fonts: [Font] = [], lowConfidence: [Guess] = []) {
        self.fonts = fonts
        self.lowConfidence = lowConfidence
    }

    /// Distinct code points replaced, over every font.
    public var changedGlyphs: Int { fonts.reduce(0) { $0 + $1.changed } }
    /// Distinct code points decoded, over every font.
    public var decodedGlyphs: Int { fonts.reduce(0) { $0 + $1.glyphs } }

    /// One line for reports: "decoded 312 glyphs of 2 web fonts ("a", "b"), 3 with low confidence: …".
    public var summary: String {
        let decoded = fonts.filter { $0.error == nil }
        var text = "web fonts: \(changedGlyphs) of \(decodedGlyphs) glyphs decoded as other characters, from "
            + decoded.map { "\"\($0.family)\"" }.joined(separator: ", ")
        if decoded.isEmpty { text = "web fonts: none decoded" }
        if !lowConfidence.isEmpty {
            text += "; \(lowConfidence.count) with low confidence: "
                + lowConfidence.prefix(12).map { guess in
                    "\(guess.codePoint)→\(guess.character)" + (guess.runnerUp.map { " (or \($0))" } ?? "")
                }.joined(separator: ", ") + (lowConfidence.count > 12 ? ", …" : "")
        }
        for font in fonts {
            if let error = font.error { text += "; \"\(font.family)\" not decoded: \(error)" }
        }
        return text
    }

    /// Adds `other` (a later page of the same chapter): the same font (family and URL) counts once.
    mutating func merge(_ other: WebFontReport) {
        for font in other.fonts {
            if let index = fonts.firstIndex(where: { $0.family == font.family && $0.url == font.url }) {
                fonts[index].glyphs = max(fonts[index].glyphs, font.glyphs)
                fonts[index].changed = max(fonts[index].changed, font.changed)
            } else {
                fonts.append(font)
            }
        }
        for guess in other.lowConfidence where !lowConfidence.contains(where: { $0.codePoint == guess.codePoint && $0.family == guess.family }) {
            lowConfidence.append(guess)
        }
    }
}
