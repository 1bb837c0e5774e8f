import CGlyphKernels
import Foundation

/// What the recogniser compares: the directions of a glyph's stroke edges, pooled over an 8×8 grid of its
/// raster (512 values), a 4×4 pooling of the same (128 values) for a first, cheap pass, and on demand a 16×16
/// pooling (2,048 values) that tells apart characters that differ in one short stroke (己 and 已, 未 and 末).
///
/// Edge directions describe strokes where they lie, not how thick or how finished they are, so the same
/// character in a Hei (sans) and a Ming (serif) face, or re-drawn with moved points, stays close while two
/// characters stay apart (docs/fonts.md has what else was tried and the figures).
struct GlyphFeatures {
    static let directions = 8
    static let grid = 8
    static let coarseGrid = 4
    static let detailGrid = 16
    static let count = directions * grid * grid
    static let coarseCount = directions * coarseGrid * coarseGrid
    static let detailCount = directions * detailGrid * detailGrid

    var fine: [Float]
    var coarse: [Float]

    init(_ image: GlyphImage) {
        let planes = Self.directionPlanes(image)
        let pooled = Self.pool(planes, grid: Self.grid)
        let step = Self.grid / Self.coarseGrid
        var coarse = [Float](repeating: 0, count: Self.coarseCount)
        for direction in 0..<Self.directions {
            for row in 0..<Self.grid {
                for column in 0..<Self.grid {
                    coarse[(direction * Self.coarseGrid + row / step) * Self.coarseGrid + column / step]
                        += pooled[(direction * Self.grid + row) * Self.grid + column]
                }
            }
        }
        fine = Self.normalised(pooled)
        self.coarse = Self.normalised(coarse)
    }

    /// The 16×16 pooling, for the last comparison between a few close candidates.
    static func detail(_ image: GlyphImage) -> [Float] {
        normalised(pool(directionPlanes(image), grid: detailGrid))
    }

    /// Each pixel's edge strength (Sobel), split between the two nearest of eight directions: eight planes of
    /// `side`×`side` (the loop is C: see `CGlyphKernels`).
    private static func directionPlanes(_ image: GlyphImage) -> [Float] {
        let side = GlyphImage.side
        var planes = [Float](repeating: 0, count: directions * side * side)
        image.pixels.withUnsafeBufferPointer { pixels in
            planes.withUnsafeMutableBufferPointer { out in
                guard pixels.count >= side * side, out.count >= 8 * side * side,
                      let pixels = pixels.baseAddress, let out = out.baseAddress else { return }
                bookrule_glyph_direction_planes(pixels, side, out)
            }
        }
        return planes
    }

    /// Pooling weights for a grid: a Gaussian around each cell's centre (σ = half a cell), so a stroke that
    /// moves a few pixels moves its weight between neighbouring cells smoothly instead of jumping. Flat, one row
    /// of `side` weights per cell, with the pixel range where each is not zero.
    private struct PoolingWeights {
        var lower: [Int]
        var upper: [Int]
        var values: [Float]

        init(grid: Int) {
            let side = GlyphImage.side
            let cell = Float(side) / Float(grid)
            let sigma = cell / 2
            lower = []
            upper = []
            values = [Float](repeating: 0, count: grid * side)
            for index in 0..<grid {
                let centre = (Float(index) + 0.5) * cell
                let low = max(0, Int((centre - 3 * sigma).rounded(.down)))
                let high = min(side, Int((centre + 3 * sigma).rounded(.up)))
                lower.append(low)
                upper.append(high)
                for x in low..<high {
                    let distance = Float(x) + 0.5 - centre
                    values[index * side + x] = exp(-distance * distance / (2 * sigma * sigma))
                }
            }
        }
    }

    private static let weightsByGrid: [Int: PoolingWeights] = [
        grid: PoolingWeights(grid: grid), detailGrid: PoolingWeights(grid: detailGrid),
    ]

    /// Separable pooling of the planes into `grid`×`grid` cells: rows into columns, then columns into rows (in C:
    /// see `CGlyphKernels`).
    private static func pool(_ planes: [Float], grid: Int) -> [Float] {
        let side = GlyphImage.side
        let weights = weightsByGrid[grid] ?? PoolingWeights(grid: grid)
        var pooled = [Float](repeating: 0, count: directions * grid * grid)
        var rows = [Float](repeating: 0, count: side * grid)
        guard planes.count == directions * side * side, weights.values.count == grid * side,
              weights.lower.count == grid, weights.upper.count == grid else { return pooled }
        planes.withUnsafeBufferPointer { planes in
            rows.withUnsafeMutableBufferPointer { rows in
                pooled.withUnsafeMutableBufferPointer { out in
                    weights.values.withUnsafeBufferPointer { values in
                        weights.lower.withUnsafeBufferPointer { lower in
                            weights.upper.withUnsafeBufferPointer { upper in
                                guard let planes = planes.baseAddress, let rows = rows.baseAddress, let out = out.baseAddress,
                                      let values = values.baseAddress, let lower = lower.baseAddress,
                                      let upper = upper.baseAddress else { return }
                                bookrule_glyph_pool(planes, directions, side, grid, values, lower, upper, rows, out)
                            }
                        }
                    }
                }
            }
        }
        return pooled
    }

    /// Square roots (so a few strong edges do not outweigh the rest), scaled to unit length.
    private static func normalised(_ values: [Float]) -> [Float] {
        var result = values.map { $0.squareRoot() }
        let length = result.reduce(0) { $0 + $1 * $1 }.squareRoot()
        if length > 0 { for index in result.indices { result[index] /= length } }
        return result
    }

    /// The dot product of two feature vectors of the same kind (0 when their lengths differ).
    static func similarity(_ a: [Float], _ b: [Float]) -> Float {
        guard a.count == b.count else { return 0 }
        return a.withUnsafeBufferPointer { left in
            b.withUnsafeBufferPointer { right in
                guard let left = left.baseAddress, let right = right.baseAddress else { return 0 }
                return similarity(left, right, count: a.count)
            }
        }
    }

    /// The dot product of two unit vectors stored at `a` and `b`: 1 for the same look (in C: see
    /// `CGlyphKernels`).
    @inline(__always)
    static func similarity(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        bookrule_glyph_dot(a, b, count)
    }
}
