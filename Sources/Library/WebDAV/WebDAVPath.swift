/// How names become parts of WebDAV URLs and back.
enum WebDAVPath {
    /// `name` as one path segment: every byte of its UTF-8 outside RFC 3986's unreserved characters
    /// percent-encoded (so `/`, `%`, `?`, `#` and spaces stay inside the segment). Legado's
    /// `UrlUtil.replaceReservedChar` encodes a subset of these, so the server stores the same name either way.
    static func segment(_ name: String) -> String {
        var encoded = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                encoded.unicodeScalars.append(UnicodeScalar(byte))
            default:
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return encoded
    }

    /// `text` with its `%XX` escapes decoded as UTF-8 (an escape that is not two hex digits is kept as it is).
    static func decoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
               let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The path of an http(s) URL or of an absolute path (`/dav/legado/`), without query or fragment.
    static func path(of reference: String) -> String {
        var text = Substring(reference)
        if let scheme = text.range(of: "://") {
            text = text[scheme.upperBound...]
            guard let slash = text.firstIndex(of: "/") else { return "/" }
            text = text[slash...]
        }
        if let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<end] }
        return String(text)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
