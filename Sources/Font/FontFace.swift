import CFreeType

/// One face of a font file, opened with FreeType from memory (web fonts) or from a path (installed reference
/// fonts). A face belongs to the thread that opened it, as its `FreeTypeLibrary` does.
final class FontFace {
    private let library: FreeTypeLibrary
    let handle: FT_Face
    /// The font's bytes for a face opened from memory: FreeType reads them for the face's whole life.
    private let storage: UnsafeMutableRawBufferPointer?

    /// The face at `index` of the font in `bytes`, refused before parsing when it passes `limits`.
    init(bytes: [UInt8], index: Int = 0, limits: FontLimits, library: FreeTypeLibrary) throws(FontError) {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maxBytes) }
        guard !bytes.isEmpty else { throw .unreadable(reason: "the file is empty") }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        var face: FT_Face?
        let error = FT_New_Memory_Face(library.handle, storage.baseAddress?.assumingMemoryBound(to: FT_Byte.self),
                                       FT_Long(bytes.count), FT_Long(index), &face)
        guard error == 0, let face else {
            storage.deallocate()
            throw .unreadable(reason: Self.message(error))
        }
        self.library = library
        self.handle = face
        self.storage = storage
        try checkGlyphCount(limits)
    }

    /// The face at `index` of the font file at `path`.
    init(path: String, index: Int, library: FreeTypeLibrary) throws(FontError) {
        var face: FT_Face?
        let error = FT_New_Face(library.handle, path, FT_Long(index), &face)
        guard error == 0, let face else { throw .unreadable(reason: "\(path): " + Self.message(error)) }
        self.library = library
        self.handle = face
        self.storage = nil
    }

    deinit {
        FT_Done_Face(handle)
        storage?.deallocate()
    }

    private func checkGlyphCount(_ limits: FontLimits) throws(FontError) {
        let count = Int(handle.pointee.num_glyphs)
        guard count <= limits.maxGlyphs else { throw .tooManyGlyphs(count: count, limit: limits.maxGlyphs) }
        guard bookrule_ft_face_is_scalable(handle) != 0 else { throw .unreadable(reason: "it holds no outlines") }
    }

    /// How many faces the file holds (a `.ttc` collection holds several).
    var faceCount: Int { Int(handle.pointee.num_faces) }
    /// The face's family name, e.g. "Noto Sans CJK SC".
    var familyName: String { handle.pointee.family_name.map { String(cString: $0) } ?? "" }
    var unitsPerEm: Int { max(1, Int(handle.pointee.units_per_EM)) }

    /// The glyph `scalar` maps to in the face's Unicode character map, or nil when it has none.
    func glyphIndex(for scalar: UInt32) -> UInt32? {
        let index = FT_Get_Char_Index(handle, FT_ULong(scalar))
        return index == 0 ? nil : UInt32(index)
    }

    /// Every (code point, glyph) pair of the Unicode character map, at most `limit` of them.
    func characterMap(limit: Int) -> [(scalar: UInt32, glyph: UInt32)] {
        var pairs: [(scalar: UInt32, glyph: UInt32)] = []
        var glyph: FT_UInt = 0
        var code = FT_Get_First_Char(handle, &glyph)
        while glyph != 0 && pairs.count < limit {
            pairs.append((UInt32(code), UInt32(glyph)))
            code = FT_Get_Next_Char(handle, code, &glyph)
        }
        return pairs
    }

    /// Loads `glyph`'s outline in font units into the face's slot; false when it has none (or is empty).
    private func loadOutline(_ glyph: UInt32) -> Bool {
        guard FT_Load_Glyph(handle, FT_UInt(glyph), bookrule_ft_load_outline) == 0,
              let slot = handle.pointee.glyph, bookrule_ft_slot_is_outline(slot) != 0 else { return false }
        return slot.pointee.outline.n_points > 0
    }

    /// The glyph's outline as it is stored (points in font units, contour ends, on/off-curve flags), for exact
    /// comparison as Legado's QueryTTF makes it; nil for an empty glyph.
    func outline(of glyph: UInt32) -> GlyphOutline? {
        guard loadOutline(glyph), let slot = handle.pointee.glyph else { return nil }
        let outline = slot.pointee.outline
        let points = (0..<Int(outline.n_points)).map { index -> GlyphOutline.Point in
            let point = outline.points[index]
            return GlyphOutline.Point(x: Int32(truncatingIfNeeded: point.x), y: Int32(truncatingIfNeeded: point.y),
                                      onCurve: outline.tags[index] & 1 != 0)
        }
        let ends = (0..<Int(outline.n_contours)).map { Int32(outline.contours[$0]) }
        return GlyphOutline(points: points, contourEnds: ends)
    }

    /// What drawing a glyph gave.
    enum Drawing {
        /// Ink, drawn for comparison.
        case image(GlyphImage)
        /// No ink: a space.
        case blank
        /// FreeType could not load or draw it (a damaged glyph).
        case failed
    }

    /// The glyph drawn for comparison (see `GlyphImage`), or nil for an empty or damaged glyph.
    func image(of glyph: UInt32) -> GlyphImage? {
        if case .image(let image) = drawing(of: glyph) { return image }
        return nil
    }

    /// The glyph drawn for comparison, or why there is nothing to compare.
    func drawing(of glyph: UInt32) -> Drawing {
        guard FT_Load_Glyph(handle, FT_UInt(glyph), bookrule_ft_load_outline) == 0,
              let slot = handle.pointee.glyph, bookrule_ft_slot_is_outline(slot) != 0 else { return .failed }
        guard slot.pointee.outline.n_points > 0 else { return .blank }
        var box = FT_BBox()
        guard FT_Outline_Get_BBox(&slot.pointee.outline, &box) == 0 else { return .failed }
        let em = Float(unitsPerEm)
        let width = Float(box.xMax - box.xMin)
        let height = Float(box.yMax - box.yMin)
        guard width > 0 || height > 0 else { return .blank }
        let advance = Float(slot.pointee.metrics.horiAdvance)
        let geometry = GlyphGeometry(
            width: width / em, height: height / em,
            centreX: advance > 0 ? (Float(box.xMin) + width / 2) / advance : 0.5,
            centreY: (Float(box.yMin) + height / 2) / em, advance: advance / em)
        // Font units to 26.6 pixels: the larger side fills `inkSide`, whatever the glyph's size (a colon is two
        // dots however small a face draws it; its size and place are in `geometry`). Ink under a twentieth of an
        // em is scaled as that would be, so a stray speck is not blown up to a blob.
        let scale = Double(GlyphImage.inkSide * 64) / Double(max(width, height, em / 20))
        var matrix = FT_Matrix(xx: FT_Fixed(scale * 65536), xy: 0, yx: 0, yy: FT_Fixed(scale * 65536))
        FT_Outline_Transform(&slot.pointee.outline, &matrix)
        let centre = GlyphImage.side * 32
        let dx = FT_Pos(centre) - FT_Pos((Double(box.xMin) + Double(width) / 2) * scale)
        let dy = FT_Pos(centre) - FT_Pos((Double(box.yMin) + Double(height) / 2) * scale)
        FT_Outline_Translate(&slot.pointee.outline, dx, dy)
        var pixels = [UInt8](repeating: 0, count: GlyphImage.side * GlyphImage.side)
        let drawn = pixels.withUnsafeMutableBufferPointer { buffer -> Bool in
            var bitmap = FT_Bitmap()
            bitmap.rows = UInt32(GlyphImage.side)
            bitmap.width = UInt32(GlyphImage.side)
            bitmap.pitch = Int32(GlyphImage.side)
            bitmap.buffer = buffer.baseAddress
            bitmap.num_grays = 256
            bitmap.pixel_mode = UInt8(FT_PIXEL_MODE_GRAY.rawValue)
            return FT_Outline_Get_Bitmap(library.handle, &slot.pointee.outline, &bitmap) == 0
        }
        guard drawn else { return .failed }
        // Ink too thin to cover a pixel's worth of coverage has no shape to compare: a space to a reader.
        guard pixels.contains(where: { $0 > 32 }) else { return .blank }
        return .image(GlyphImage(pixels: pixels, geometry: geometry))
    }

    /// FreeType's error codes a user may meet, in words.
    static func message(_ error: FT_Error) -> String {
        switch error {
        case 0x01: return "cannot open resource"
        case 0x02: return "unknown file format"
        case 0x03: return "broken file"
        case 0x06: return "invalid argument"
        case 0x40: return "out of memory"
        case 0x08, 0x09: return "broken table"
        default: return "FreeType error \(error)"
        }
    }
}

/// A glyph's outline as its font stores it.
struct GlyphOutline: Hashable {
    struct Point: Hashable {
        var x: Int32
        var y: Int32
        var onCurve: Bool
    }
    var points: [Point]
    var contourEnds: [Int32]

    /// The text Legado's `QueryTTF.getGlyfByUnicode` stands for: the same outline gives the same text.
    var key: String {
        var text = contourEnds.map(String.init).joined(separator: ",") + "|"
        for point in points { text += "\(point.x),\(point.y)\(point.onCurve ? "" : "~");" }
        return text
    }
}
