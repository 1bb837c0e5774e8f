/// Bounds on an untrusted web font: a page can serve any bytes as a font, so size, glyph count and decoding
/// time are capped before FreeType or the recogniser spends anything on them.
public struct FontLimits: Sendable, Equatable {
    /// The largest font file read, in bytes (web fonts that draw a chapter are kilobytes; a whole CJK face a few
    /// megabytes).
    public var maxBytes: Int
    /// The most glyphs a font may declare.
    public var maxGlyphs: Int
    /// The most distinct characters decoded from one font per call (a chapter uses a few hundred).
    public var maxDecodedGlyphs: Int
    /// The most outline points read from one font for exact comparison (`FontOutlines`): composite glyphs can
    /// repeat a large outline for free, so the size of the file says little.
    public var maxOutlinePoints: Int
    /// Wall-clock time one decoding may take; glyphs not reached by then stay as they are, and the result says so.
    public var timeLimit: Duration

    public init(maxBytes: Int = 16 << 20, maxGlyphs: Int = 65_535, maxDecodedGlyphs: Int = 8_000,
                maxOutlinePoints: Int = 2_000_000, timeLimit: Duration = .seconds(20)) {
        self.maxOutlinePoints = maxOutlinePoints
        self.maxBytes = maxBytes
        self.maxGlyphs = maxGlyphs
        self.maxDecodedGlyphs = maxDecodedGlyphs
        self.timeLimit = timeLimit
    }

    /// The limits every command uses.
    public static let standard = FontLimits()
}
