import Foundation

/// What the recogniser compares: the directions of a glyph's stroke edges, pooled over an 8×8 grid of its
/// raster (512 values), and a 4×4 pooling of the same (128 values) for a first, cheap pass.
///
/// Edge directions describe strokes where they lie, not how thick or how finished they are, so the same
/// character in a Hei (sans) and a Ming (serif) face, or re-drawn with moved points, stays close while two
/// characters stay apart (docs/fonts.md has what else was tried and the figures).
struct GlyphFeatures {
    static let directions = 8
    static let grid = 8
    static let coarseGrid = 4
    static let count = directions * grid * grid
    static let coarseCount = directions * coarseGrid * coarseGrid

    var fine: [Float]
    var coarse: [Float]

    /// Pooling weights: a Gaussian around each cell's centre (σ = half a cell), so a stroke that moves a few
    /// pixels moves its weight between neighbouring cells smoothly instead of jumping.
    private static let weights: [[Float]] = {
        let side = GlyphImage.side
        let cell = Float(side) / Float(grid)
        let sigma = cell / 2
        return (0..<grid).map { index in
            let centre = (Float(index) + 0.5) * cell
            return (0..<side).map { x in
                let distance = Float(x) + 0.5 - centre
                return abs(distance) > 3 * sigma ? 0 : exp(-distance * distance / (2 * sigma * sigma))
            }
        }
    }()

    init(_ image: GlyphImage) {
        let side = GlyphImage.side
        let directions = Self.directions
        let grid = Self.grid
        var planes = [Float](repeating: 0, count: directions * side * side)
        image.pixels.withUnsafeBufferPointer { pixels in
            func at(_ x: Int, _ y: Int) -> Float { Float(pixels[y * side + x]) }
            for y in 1..<(side - 1) {
                for x in 1..<(side - 1) {
                    let gx = at(x + 1, y - 1) + 2 * at(x + 1, y) + at(x + 1, y + 1)
                        - at(x - 1, y - 1) - 2 * at(x - 1, y) - at(x - 1, y + 1)
                    let gy = at(x - 1, y + 1) + 2 * at(x, y + 1) + at(x + 1, y + 1)
                        - at(x - 1, y - 1) - 2 * at(x, y - 1) - at(x + 1, y - 1)
                    let magnitude = (gx * gx + gy * gy).squareRoot()
                    guard magnitude > 0 else { continue }
                    var angle = atan2(gy, gx)
                    if angle < 0 { angle += 2 * .pi }
                    let position = angle / (.pi / 4)
                    let lower = Int(position) % directions
                    let share = position - Float(Int(position))
                    planes[(lower * side + y) * side + x] += magnitude * (1 - share)
                    planes[(((lower + 1) % directions) * side + y) * side + x] += magnitude * share
                }
            }
        }
        // Separable pooling: rows into `grid` columns, then columns into `grid` rows.
        var pooled = [Float](repeating: 0, count: directions * grid * grid)
        var rows = [Float](repeating: 0, count: side * grid)
        for direction in 0..<directions {
            let base = direction * side * side
            for y in 0..<side {
                for column in 0..<grid {
                    var sum: Float = 0
                    let weights = Self.weights[column]
                    for x in 0..<side where weights[x] > 0 { sum += weights[x] * planes[base + y * side + x] }
                    rows[y * grid + column] = sum
                }
            }
            for row in 0..<grid {
                let weights = Self.weights[row]
                for column in 0..<grid {
                    var sum: Float = 0
                    for y in 0..<side where weights[y] > 0 { sum += weights[y] * rows[y * grid + column] }
                    pooled[(direction * grid + row) * grid + column] = sum
                }
            }
        }
        let coarseGrid = Self.coarseGrid
        let step = grid / coarseGrid
        var coarse = [Float](repeating: 0, count: Self.coarseCount)
        for direction in 0..<directions {
            for row in 0..<grid {
                for column in 0..<grid {
                    coarse[(direction * coarseGrid + row / step) * coarseGrid + column / step]
                        += pooled[(direction * grid + row) * grid + column]
                }
            }
        }
        fine = Self.normalised(pooled)
        self.coarse = Self.normalised(coarse)
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

    /// The dot product of two unit vectors stored at `a` and `b`: 1 for the same look.
    @inline(__always)
    static func similarity(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sums = SIMD8<Float>()
        var index = 0
        while index + 8 <= count {
            let left = UnsafeRawPointer(a + index).loadUnaligned(as: SIMD8<Float>.self)
            let right = UnsafeRawPointer(b + index).loadUnaligned(as: SIMD8<Float>.self)
            sums += left * right
            index += 8
        }
        var total = sums.sum()
        while index < count {
            total += a[index] * b[index]
            index += 1
        }
        return total
    }
}
