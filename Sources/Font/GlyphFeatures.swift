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
    /// `side`×`side`. Written over raw buffers: it runs for every glyph of the reference index, in debug
    /// builds too.
    private static func directionPlanes(_ image: GlyphImage) -> [Float] {
        let side = GlyphImage.side
        let directions = Self.directions
        var planes = [Float](repeating: 0, count: directions * side * side)
        image.pixels.withUnsafeBufferPointer { pixelBuffer in
            planes.withUnsafeMutableBufferPointer { planeBuffer in
                guard let pixels = pixelBuffer.baseAddress, let out = planeBuffer.baseAddress else { return }
                let planeSize = side * side
                for y in 1..<(side - 1) {
                    let above = pixels + (y - 1) * side
                    let row = pixels + y * side
                    let below = pixels + (y + 1) * side
                    for x in 1..<(side - 1) {
                        let gx = Float(Int(above[x + 1]) + 2 * Int(row[x + 1]) + Int(below[x + 1])
                            - Int(above[x - 1]) - 2 * Int(row[x - 1]) - Int(below[x - 1]))
                        let gy = Float(Int(below[x - 1]) + 2 * Int(below[x]) + Int(below[x + 1])
                            - Int(above[x - 1]) - 2 * Int(above[x]) - Int(above[x + 1]))
                        if gx == 0 && gy == 0 { continue }
                        let magnitude = (gx * gx + gy * gy).squareRoot()
                        var angle = atan2f(gy, gx)
                        if angle < 0 { angle += 2 * .pi }
                        let position = angle * (4 / .pi)
                        let whole = Int(position)
                        let share = position - Float(whole)
                        let lower = whole % directions
                        let upper = (lower + 1) % directions
                        out[lower * planeSize + y * side + x] += magnitude * (1 - share)
                        out[upper * planeSize + y * side + x] += magnitude * share
                    }
                }
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

    /// Separable pooling of the planes into `grid`×`grid` cells: rows into columns, then columns into rows.
    /// Plain index loops over raw buffers (see `similarity`: debug builds run this for every reference glyph).
    private static func pool(_ planes: [Float], grid: Int) -> [Float] {
        let side = GlyphImage.side
        let weights = weightsByGrid[grid] ?? PoolingWeights(grid: grid)
        var pooled = [Float](repeating: 0, count: directions * grid * grid)
        var rows = [Float](repeating: 0, count: side * grid)
        planes.withUnsafeBufferPointer { planeBuffer in
            rows.withUnsafeMutableBufferPointer { rowBuffer in
                pooled.withUnsafeMutableBufferPointer { pooledBuffer in
                    weights.values.withUnsafeBufferPointer { weightBuffer in
                        guard let planes = planeBuffer.baseAddress, let rows = rowBuffer.baseAddress,
                              let out = pooledBuffer.baseAddress, let values = weightBuffer.baseAddress else { return }
                        for direction in 0..<directions {
                            let plane = planes + direction * side * side
                            for y in 0..<side {
                                let line = plane + y * side
                                for column in 0..<grid {
                                    let weight = values + column * side
                                    var sum: Float = 0
                                    var x = weights.lower[column]
                                    let end = weights.upper[column]
                                    while x < end {
                                        sum += weight[x] * line[x]
                                        x += 1
                                    }
                                    rows[y * grid + column] = sum
                                }
                            }
                            for row in 0..<grid {
                                let weight = values + row * side
                                let end = weights.upper[row]
                                for column in 0..<grid {
                                    var sum: Float = 0
                                    var y = weights.lower[row]
                                    while y < end {
                                        sum += weight[y] * rows[y * grid + column]
                                        y += 1
                                    }
                                    out[(direction * grid + row) * grid + column] = sum
                                }
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

    /// The dot product of two unit vectors stored at `a` and `b`: 1 for the same look. Four plain accumulators
    /// rather than `SIMD8`: the optimiser vectorises this loop, and in a debug build (tests, `make demo`) SIMD
    /// types cost a function call per operation, which made a decoding a hundred times slower.
    @inline(__always)
    static func similarity(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var s0: Float = 0
        var s1: Float = 0
        var s2: Float = 0
        var s3: Float = 0
        var index = 0
        while index + 4 <= count {
            s0 += a[index] * b[index]
            s1 += a[index + 1] * b[index + 1]
            s2 += a[index + 2] * b[index + 2]
            s3 += a[index + 3] * b[index + 3]
            index += 4
        }
        while index < count {
            s0 += a[index] * b[index]
            index += 1
        }
        return (s0 + s1) + (s2 + s3)
    }
}
