/// What a web font draws for the code points a text uses: the decoded map, and what could not be decoded.
public struct FontDecoding: Sendable, Equatable {
    /// The font's SHA-256, in hex: the key its decoding is cached under.
    public var fontHash: String
    /// Code point → what its glyph shows. Code points whose glyph shows themselves are included (a shuffled
    /// font leaves most in place).
    public var glyphs: [UInt32: DecodedGlyph]
    /// Code points the font maps that were not decoded in the time limit or past the glyph limit.
    public var unreached: Int

    public init(fontHash: String, glyphs: [UInt32: DecodedGlyph], unreached: Int = 0) {
        self.fontHash = fontHash
        self.glyphs = glyphs
        self.unreached = unreached
    }

    /// `text` as the font shows it: each code point the font decodes replaced by its character.
    public func apply(to text: String) -> String {
        guard !glyphs.isEmpty else { return text }
        var result = String.UnicodeScalarView()
        var changed = false
        for scalar in text.unicodeScalars {
            if let glyph = glyphs[scalar.value], glyph.scalar != scalar.value, let decoded = Unicode.Scalar(glyph.scalar) {
                result.append(decoded)
                changed = true
            } else {
                result.append(scalar)
            }
        }
        return changed ? String(result) : text
    }

    /// The code points of `text` this decoding changes.
    public func changes(in text: String) -> Set<UInt32> {
        var changed: Set<UInt32> = []
        for scalar in text.unicodeScalars {
            if let glyph = glyphs[scalar.value], glyph.scalar != scalar.value { changed.insert(scalar.value) }
        }
        return changed
    }
}
