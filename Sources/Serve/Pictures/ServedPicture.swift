import BookRuleEngine
import BookRuleHTTPServer
import Foundation

/// The pictures serve answers, always PNGs as Legado's are (its web client puts `cover?path=` and `image?…`
/// in `<img>`): a cover scaled and cut to 84 by 112 as Legado's `getCover` asks Glide for, a chapter's picture
/// scaled down as Legado's `BitmapUtils.decodeBitmap` does, and drawn stand-ins (Legado's default cover, its
/// "image loading error" picture) when there is no picture to decode.
enum ServedPicture {
    /// Legado's cover size (`override(84, 112).centerCrop()`).
    static let coverSize = (width: 84, height: 112)

    /// The cover answered for `bytes` (a picture file's contents), or the default cover.
    static func cover(_ bytes: [UInt8]?) -> HTTPServerResponse {
        if let bytes, let decoded = RasterImage.decode(bytes, atLeast: coverSize),
           let png = decoded.image.centerCropped(width: coverSize.width, height: coverSize.height).png() {
            return response(png, cached: true)
        }
        return response(defaultCover, cached: false)
    }

    /// A chapter's picture for a reader `width` pixels wide (Legado's `width` argument, 640 by default), or the
    /// loading-error picture. As Android's `inSampleSize`, a picture more than twice as wide is divided by the
    /// largest power of two not above its width over `width`; a narrower one is answered at its own size.
    static func picture(_ bytes: [UInt8]?, width: Int) -> HTTPServerResponse {
        if let bytes, let decoded = RasterImage.decode(bytes, atLeast: (max(1, width), 1)) {
            let full = decoded.fullSize
            let ratio = full.width / max(1, width)
            var sample = 1
            while ratio > 1 && sample * 2 <= ratio { sample *= 2 }
            let image = decoded.image.resized(width: max(1, full.width / sample), height: max(1, full.height / sample))
            if let png = image.png() { return response(png, cached: true) }
        }
        return response(errorPicture, cached: false)
    }

    private static func response(_ png: [UInt8], cached: Bool) -> HTTPServerResponse {
        // A stand-in is not kept by the browser: the real picture may be there on the next visit.
        HTTPServerResponse(status: 200, headers: [("Content-Type", "image/png"),
                                                  ("Cache-Control", cached ? "max-age=86400" : "no-cache")],
                           body: png)
    }

    /// The bytes of a `data:` URL (`data:image/png;base64,…`, or percent-encoded without `;base64`); nil for
    /// any other address or a malformed one.
    static func dataURLBytes(_ address: String) -> [UInt8]? {
        DataURL.bytes(of: address)
    }

    /// The default cover (Legado shows its own drawn cover for a book without one): 84 by 112, a dark cloth
    /// cover with a lighter band where a title would go.
    static let defaultCover: [UInt8] = draw(width: coverSize.width, height: coverSize.height) { x, y, width, height in
        if x < 3 || y < 3 || x >= width - 3 || y >= height - 3 { return (0x3A, 0x4A, 0x5C, 255) }
        if x < 9 { return (0x45, 0x57, 0x6B, 255) }  // the spine
        if (34..<56).contains(y) && (16..<width - 8).contains(x) { return (0xE8, 0xE2, 0xD0, 255) }
        let shade = UInt8(clamping: 0x5E + y / 8)
        return (shade, UInt8(clamping: Int(shade) + 0x12), UInt8(clamping: Int(shade) + 0x26), 255)
    }

    /// The picture answered for one that cannot be had (Legado's `image_loading_error`): 96 by 96, light grey
    /// with a dark cross.
    static let errorPicture: [UInt8] = draw(width: 96, height: 96) { x, y, width, _ in
        let onCross = abs(x - y) <= 2 || abs(x + y - (width - 1)) <= 2
        let inside = (24..<72).contains(x) && (24..<72).contains(y)
        return onCross && inside ? (0x80, 0x80, 0x80, 255) : (0xEE, 0xEE, 0xEE, 255)
    }

    private static func draw(width: Int, height: Int,
                             _ colour: (Int, Int, Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (red, green, blue, alpha) = colour(x, y, width, height)
                let index = (y * width + x) * 4
                pixels[index] = red
                pixels[index + 1] = green
                pixels[index + 2] = blue
                pixels[index + 3] = alpha
            }
        }
        return RasterImage(width: width, height: height, pixels: pixels).png() ?? []
    }
}
