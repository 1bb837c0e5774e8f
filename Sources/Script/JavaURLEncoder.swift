import BookRuleDocument

/// `java.net.URLEncoder.encode(text, charset)`, which Legado's `java.encodeURI` is: HTML form encoding,
/// not JavaScript's `encodeURI`. Letters, digits and `. - * _` stay; a space becomes `+`; every other byte
/// of the text in `charset` becomes `%XX` (upper-case hex). `encodeURI(key, "GBK")` is how sources build
/// search URLs for GBK sites.
enum JavaURLEncoder {
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// The encoded text, or nil when the machine does not know `charset`.
    static func encode(_ text: String, charset: String) -> String? {
        let name = charset.isEmpty ? "UTF-8" : charset
        let bytes: [UInt8]
        if name.uppercased() == "UTF-8" || name.uppercased() == "UTF8" {
            bytes = Array(text.utf8)
        } else {
            guard TextTranscoder.isSupported(name), let encoded = try? TextTranscoder.bytes(of: text, charset: name) else {
                return nil
            }
            bytes = encoded
        }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "*"),
                 UInt8(ascii: "_"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                output.append(UInt8(ascii: "%"))
                output.append(hex[Int(byte >> 4)])
                output.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
