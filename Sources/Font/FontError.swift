/// Why a web font could not be read or decoded; each case says what a user can do about it.
public enum FontError: Error, Sendable, Equatable, CustomStringConvertible {
    /// FreeType refused the bytes (not a TrueType, OpenType, WOFF or WOFF2 font, or a damaged one).
    case unreadable(reason: String)
    /// The font is larger than `FontLimits.maxBytes`.
    case tooLarge(bytes: Int, limit: Int)
    /// The font holds more glyphs than `FontLimits.maxGlyphs`.
    case tooManyGlyphs(count: Int, limit: Int)
    /// The font's outlines hold more points than `FontLimits.maxOutlinePoints` (a font built to fill memory).
    case tooComplex(points: Int, limit: Int)
    /// No reference CJK font is installed, so glyphs cannot be recognised.
    case noReferenceFonts(searched: [String])
    /// The reference index could not be built from the installed fonts.
    case referenceIndex(reason: String)
    /// FreeType could not be started.
    case library(code: Int32)

    public var description: String {
        switch self {
        case .unreadable(let reason):
            return "the web font cannot be read: \(reason) (TrueType, OpenType, WOFF and WOFF2 are read)"
        case .tooLarge(let bytes, let limit):
            return "the web font is \(bytes) bytes, over the limit of \(limit) bytes: it was not decoded"
        case .tooManyGlyphs(let count, let limit):
            return "the web font holds \(count) glyphs, over the limit of \(limit): it was not decoded"
        case .tooComplex(let points, let limit):
            return "the web font's outlines hold over \(points) points, past the limit of \(limit): it was not read"
        case .noReferenceFonts(let searched):
            return "no reference CJK font is installed to recognise a web font's glyphs (looked for "
                + searched.joined(separator: ", ") + "); install Debian's fonts-noto-cjk, or set BOOKRULE_REFERENCE_FONTS"
        case .referenceIndex(let reason):
            return "the reference glyphs could not be prepared: \(reason)"
        case .library(let code):
            return "FreeType could not start (error \(code))"
        }
    }
}
