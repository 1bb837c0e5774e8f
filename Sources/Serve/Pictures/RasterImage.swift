import CJPEG
import CPNG
import Foundation

/// A picture decoded to 8-bit RGBA pixels, rows top to bottom: what serve decodes a cover or a chapter's picture
/// into (JPEG through libjpeg, PNG through libpng, GIF's first frame here), scales as Legado does, and answers as
/// a PNG, since Legado answers every picture as the PNG of an Android `Bitmap`.
struct RasterImage: Sendable, Equatable {
    /// Width in pixels.
    let width: Int
    /// Height in pixels.
    let height: Int
    /// `width * height * 4` bytes: red, green, blue, alpha.
    let pixels: [UInt8]

    /// The most pixels a picture may decode to (at 4 bytes each, 96 MB): a larger one is refused before any of
    /// its pixels is decoded, so a small file claiming a huge size costs nothing.
    static let maximumPixels = 24_000_000

    init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A picture of one colour.
    init(width: Int, height: Int, filledWith colour: (UInt8, UInt8, UInt8, UInt8)) {
        self.width = width
        self.height = height
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in stride(from: 0, to: pixels.count, by: 4) {
            pixels[index] = colour.0
            pixels[index + 1] = colour.1
            pixels[index + 2] = colour.2
            pixels[index + 3] = colour.3
        }
        self.pixels = pixels
    }

    /// The picture in `bytes` (JPEG, PNG or GIF, told by their first bytes, not by any name), and its own size;
    /// nil when it is none of them or cannot be decoded. A JPEG is decoded at a libjpeg reduction (1/2, 1/4,
    /// 1/8) that keeps it at least `atLeast` in both directions (its own size is still what `fullSize` says).
    static func decode(_ bytes: [UInt8], atLeast: (width: Int, height: Int) = (0, 0))
        -> (image: RasterImage, fullSize: (width: Int, height: Int))? {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) { return decodeJPEG(bytes, atLeast: atLeast) }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return decodePNG(bytes).map { ($0, ($0.width, $0.height)) }
        }
        if bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8)) {
            return GIFDecoder.firstFrame(bytes).map { ($0, ($0.width, $0.height)) }
        }
        return nil
    }

    private static func decodeJPEG(_ bytes: [UInt8], atLeast: (width: Int, height: Int))
        -> (image: RasterImage, fullSize: (width: Int, height: Int))? {
        var fullWidth: UInt32 = 0, fullHeight: UInt32 = 0, width: UInt32 = 0, height: UInt32 = 0
        var rgb: UnsafeMutablePointer<UInt8>?
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            bookrule_jpeg_decode(buffer.baseAddress, UInt(buffer.count), UInt32(clamping: atLeast.width),
                                 UInt32(clamping: atLeast.height), UInt(maximumPixels),
                                 &fullWidth, &fullHeight, &width, &height, &rgb)
        }
        guard decoded == 1, let rgb else { return nil }
        defer { free(rgb) }
        let count = Int(width) * Int(height)
        var pixels = [UInt8](repeating: 255, count: count * 4)
        for index in 0..<count {
            pixels[index * 4] = rgb[index * 3]
            pixels[index * 4 + 1] = rgb[index * 3 + 1]
            pixels[index * 4 + 2] = rgb[index * 3 + 2]
        }
        return (RasterImage(width: Int(width), height: Int(height), pixels: pixels), (Int(fullWidth), Int(fullHeight)))
    }

    private static func decodePNG(_ bytes: [UInt8]) -> RasterImage? {
        var width: UInt32 = 0, height: UInt32 = 0
        var rgba: UnsafeMutablePointer<UInt8>?
        let decoded = bytes.withUnsafeBufferPointer { buffer in
            bookrule_png_decode(buffer.baseAddress, buffer.count, UInt(maximumPixels), &width, &height, &rgba)
        }
        guard decoded == 1, let rgba else { return nil }
        defer { free(rgba) }
        let pixels = Array(UnsafeBufferPointer(start: rgba, count: Int(width) * Int(height) * 4))
        return RasterImage(width: Int(width), height: Int(height), pixels: pixels)
    }

    /// The picture as a PNG file (libpng, RGBA, 8 bits); nil only when libpng fails.
    func png() -> [UInt8]? {
        guard width > 0, height > 0, pixels.count == width * height * 4 else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let encoded = pixels.withUnsafeBufferPointer { buffer in
            bookrule_png_encode(buffer.baseAddress, UInt32(width), UInt32(height), &output, &size)
        }
        guard encoded == 1, let output else { return nil }
        defer { free(output) }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    /// The picture scaled to cover `width` by `height` and cut to it around its centre, as Glide's `centerCrop`
    /// after `override(width, height)` (Legado's covers: 84 by 112).
    func centerCropped(width targetWidth: Int, height targetHeight: Int) -> RasterImage {
        let sourceWidth = Double(width), sourceHeight = Double(height)
        let target = (width: Double(targetWidth), height: Double(targetHeight))
        // Glide: the side that overflows less decides the scale; the other is cut evenly on both ends.
        var region = (x: 0.0, y: 0.0, width: sourceWidth, height: sourceHeight)
        if sourceWidth * target.height > target.width * sourceHeight {
            region.width = target.width * sourceHeight / target.height
            region.x = (sourceWidth - region.width) / 2
        } else {
            region.height = target.height * sourceWidth / target.width
            region.y = (sourceHeight - region.height) / 2
        }
        return resampled(region, width: targetWidth, height: targetHeight)
    }

    /// The picture scaled to `targetWidth` by `targetHeight`.
    func resized(width targetWidth: Int, height targetHeight: Int) -> RasterImage {
        if targetWidth == width && targetHeight == height { return self }
        return resampled((0, 0, Double(width), Double(height)), width: targetWidth, height: targetHeight)
    }

    /// `region` of the picture drawn into `targetWidth` by `targetHeight` pixels: each pixel the average of the
    /// source pixels it covers (the nearest one when it covers less than one).
    private func resampled(_ region: (x: Double, y: Double, width: Double, height: Double),
                           width targetWidth: Int, height targetHeight: Int) -> RasterImage {
        let targetWidth = max(1, targetWidth), targetHeight = max(1, targetHeight)
        func spans(start: Double, length: Double, count: Int, limit: Int) -> [Range<Int>] {
            let step = length / Double(count)
            return (0..<count).map { index in
                let from = min(limit - 1, max(0, Int((start + Double(index) * step).rounded(.down))))
                let to = min(limit, max(from + 1, Int((start + Double(index + 1) * step).rounded(.up))))
                return from..<to
            }
        }
        let columns = spans(start: region.x, length: region.width, count: targetWidth, limit: width)
        let rows = spans(start: region.y, length: region.height, count: targetHeight, limit: height)
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * 4)
        pixels.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                for (y, rowSpan) in rows.enumerated() {
                    for (x, columnSpan) in columns.enumerated() {
                        var sums = (0, 0, 0, 0)
                        for row in rowSpan {
                            var index = (row * width + columnSpan.lowerBound) * 4
                            for _ in columnSpan {
                                sums.0 += Int(source[index])
                                sums.1 += Int(source[index + 1])
                                sums.2 += Int(source[index + 2])
                                sums.3 += Int(source[index + 3])
                                index += 4
                            }
                        }
                        let count = rowSpan.count * columnSpan.count
                        let out = (y * targetWidth + x) * 4
                        target[out] = UInt8(sums.0 / count)
                        target[out + 1] = UInt8(sums.1 / count)
                        target[out + 2] = UInt8(sums.2 / count)
                        target[out + 3] = UInt8(sums.3 / count)
                    }
                }
            }
        }
        return RasterImage(width: targetWidth, height: targetHeight, pixels: output)
    }
}
