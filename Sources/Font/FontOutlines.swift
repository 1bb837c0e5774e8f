/// A font's character map and glyph outlines as Legado's `QueryTTF` exposes them to scripts: which glyph a code
/// point uses, the outline of a glyph as comparable text, and the code point of a given outline. Read once,
/// whole, then immutable (so it crosses threads freely); bounded by `FontLimits`.
public final class FontOutlines: Sendable {
    /// Code point → glyph id.
    public let glyphOfCode: [UInt32: UInt32]
    /// Glyph id → its outline as text (empty for a glyph without contours: a space).
    public let outlineOfGlyph: [UInt32: String]
    /// Outline text → the lowest code point whose glyph has it (blank outlines are not listed).
    public let codeOfOutline: [String: UInt32]
    /// The code points mapped, ascending.
    public let codes: [UInt32]

    /// Reads `bytes` (TrueType, OpenType, WOFF or WOFF2).
    public init(bytes: [UInt8], limits: FontLimits = .standard) throws(FontError) {
        let library = try FreeTypeLibrary()
        let face = try FontFace(bytes: bytes, limits: limits, library: library)
        var glyphOfCode: [UInt32: UInt32] = [:]
        var outlineOfGlyph: [UInt32: String] = [:]
        var codeOfOutline: [String: UInt32] = [:]
        let pairs = face.characterMap(limit: limits.maxGlyphs)
        var points = 0
        let deadline = ContinuousClock.now + limits.timeLimit
        for (code, glyph) in pairs {
            glyphOfCode[code] = glyph
            guard outlineOfGlyph[glyph] == nil else { continue }
            let outline = face.outline(of: glyph)
            points += outline?.points.count ?? 0
            guard points <= limits.maxOutlinePoints, ContinuousClock.now < deadline else {
                throw .tooComplex(points: points, limit: limits.maxOutlinePoints)
            }
            outlineOfGlyph[glyph] = outline?.key ?? ""
        }
        for (code, glyph) in pairs.sorted(by: { $0.scalar < $1.scalar }) {
            if let key = outlineOfGlyph[glyph], !key.isEmpty, codeOfOutline[key] == nil { codeOfOutline[key] = code }
        }
        self.glyphOfCode = glyphOfCode
        self.outlineOfGlyph = outlineOfGlyph
        self.codeOfOutline = codeOfOutline
        self.codes = glyphOfCode.keys.sorted()
    }

    /// The glyph id of `code`, 0 (`.notdef`) when the font does not map it (`getGlyfIdByUnicode`).
    public func glyphID(of code: UInt32) -> UInt32 { glyphOfCode[code] ?? 0 }

    /// The outline text of `code`'s glyph, nil when unmapped (`getGlyfByUnicode`).
    public func outline(of code: UInt32) -> String? { glyphOfCode[code].flatMap { outlineOfGlyph[$0] } }

    /// The code point whose glyph has `outline`, 0 when none (`getUnicodeByGlyf`).
    public func code(of outline: String?) -> UInt32 { outline.flatMap { codeOfOutline[$0] } ?? 0 }

    /// Whether `code`'s glyph draws nothing (`isBlankUnicode`): unmapped, or without contours.
    public func isBlank(_ code: UInt32) -> Bool { outline(of: code)?.isEmpty ?? true }

    /// Legado's `replaceFont(text, errorFont, correctFont, filter)`: each character whose glyph in `self` has
    /// an outline that `correct` also holds becomes `correct`'s code point for it (exact outlines only); with
    /// `filter`, characters `self` does not draw are dropped; blank ones are kept.
    public func replacing(_ text: String, with correct: FontOutlines, filter: Bool) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let code = scalar.value
            if isBlank(code) && glyphOfCode[code] != nil {
                result.append(scalar)
                continue
            }
            let outline = glyphID(of: code) == 0 ? nil : outline(of: code)
            if filter && outline == nil { continue }
            let replacement = correct.code(of: outline)
            if replacement != 0, let decoded = Unicode.Scalar(replacement) {
                result.append(decoded)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
