/// One glyph drawn the way the recogniser compares glyphs: its ink scaled to fill a square raster and centred,
/// plus where the ink sits in the em (which tells a comma from a quote once both fill the raster).
struct GlyphImage {
    /// The raster's side in pixels.
    static let side = 64
    /// The side the ink's larger dimension is scaled to, leaving a margin for the gradient filter.
    static let inkSide = 56

    /// `side`×`side` coverage values, row by row (0 empty, 255 full).
    var pixels: [UInt8]
    /// Where the ink sits, in ems: width and height of its box, its horizontal centre relative to the advance,
    /// its vertical centre above the baseline, and the advance width.
    var geometry: GlyphGeometry
}

/// The placement of a glyph's ink in its em square, the part of its look that scaling the ink to fill a raster
/// loses: it is what tells `,` from `'`, `.` from `·`, `l` from `1` and a half-width from a full-width form.
struct GlyphGeometry: Equatable {
    var width: Float
    var height: Float
    var centreX: Float
    var centreY: Float
    var advance: Float

    /// A distance in ems between two placements (advance counts half: fonts differ in spacing more than in ink).
    func distance(to other: GlyphGeometry) -> Float {
        abs(width - other.width) + abs(height - other.height) + abs(centreX - other.centreX)
            + abs(centreY - other.centreY) + 0.5 * abs(advance - other.advance)
    }

    static let count = 5
    var values: [Float] { [width, height, centreX, centreY, advance] }
    init(width: Float, height: Float, centreX: Float, centreY: Float, advance: Float) {
        (self.width, self.height, self.centreX, self.centreY, self.advance) = (width, height, centreX, centreY, advance)
    }
    init(values: ArraySlice<Float>) {
        let start = values.startIndex
        self.init(width: values[start], height: values[start + 1], centreX: values[start + 2],
                  centreY: values[start + 3], advance: values[start + 4])
    }
}
