import BookRule

extension FuzzTarget {
    /// Limits small enough that one input stays well under libFuzzer's second.
    private static let fontLimits = FontLimits(maxBytes: 1 << 20, maxGlyphs: 4_096, maxDecodedGlyphs: 64,
                                               maxOutlinePoints: 200_000, timeLimit: .seconds(1))

    /// A web font: its character map and outlines as `java.queryTTF` reads them, and every mapped glyph drawn
    /// and turned into features as the recogniser does (no reference index is needed for that).
    static func font(_ bytes: [UInt8]) -> String? {
        if let outlines = try? FontOutlines(bytes: bytes, limits: fontLimits) {
            for code in outlines.codes.prefix(64) {
                // Every outline the font holds is found again by its text.
                if let outline = outlines.outline(of: code), !outline.isEmpty, outlines.code(of: outline) == 0 {
                    return "the outline of U+\(String(code, radix: 16)) is not found by getUnicodeByGlyf"
                }
            }
            _ = outlines.replacing("的一了是abc\u{E000}", with: outlines, filter: true)
        }
        _ = FontDecoder.drawMappedGlyphs(bytes, limits: fontLimits)
        return nil
    }
}
