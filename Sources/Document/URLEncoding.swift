/// Percent-encoding, the project's one: whole URLs as the network transport sends them and HAR replay matches
/// them (`encode`, `normalizedForComparison`), a value inside a URL (`component`, RFC 3986), and a value as an
/// HTML form or Java's `URLEncoder` writes it (`form`, Legado's `java.encodeURI`), each in UTF-8 or a page's
/// charset.
package enum URLEncoding {
    /// The bytes a value keeps as they are.
    private enum Kept {
        /// RFC 3986's unreserved characters: letters, digits and `-._~`.
        case unreserved
        /// What `application/x-www-form-urlencoded` and `java.net.URLEncoder` keep: letters, digits and `-_.*`.
        case form

        func keeps(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
                return true
            case UInt8(ascii: "~"): return self == .unreserved
            case UInt8(ascii: "*"): return self == .form
            default: return false
            }
        }
    }

    /// `text` as a value inside a URL (a search key in a path or query): every byte of its `charset` form but
    /// RFC 3986's unreserved characters written `%XX` (upper-case), a space as `%20`.
    package static func component(_ text: String, charset: String = "UTF-8") throws(CharsetError) -> String {
        escape(try bytes(of: text, charset: charset), keeping: .unreserved, spaceAsPlus: false)
    }

    /// `text` as an HTML form (`application/x-www-form-urlencoded`) or `java.net.URLEncoder.encode(text,
    /// charset)` writes it: letters, digits and `-_.*` as they are, a space as `+` (or `%20`), every other byte
    /// of its `charset` form `%XX` (upper-case).
    package static func form(_ text: String, charset: String = "UTF-8", spaceAsPlus: Bool = true) throws(CharsetError) -> String {
        escape(try bytes(of: text, charset: charset), keeping: .form, spaceAsPlus: spaceAsPlus)
    }

    /// `text` as a form writes it in UTF-8 (which never fails).
    package static func form(_ text: String, spaceAsPlus: Bool = true) -> String {
        escape(Array(text.utf8), keeping: .form, spaceAsPlus: spaceAsPlus)
    }

    /// The bytes of `text` in `charset` (empty, `UTF-8` or `UTF8`: its UTF-8).
    private static func bytes(of text: String, charset: String) throws(CharsetError) -> [UInt8] {
        switch charset.uppercased() {
        case "", "UTF-8", "UTF8": Array(text.utf8)
        default: try TextTranscoder.bytes(of: text, charset: charset)
        }
    }

    private static func escape(_ bytes: [UInt8], keeping kept: Kept, spaceAsPlus: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            if kept.keeps(byte) {
                output.append(byte)
            } else if byte == UInt8(ascii: " ") && spaceAsPlus {
                output.append(UInt8(ascii: "+"))
            } else {
                output += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        default: return byte - 0x61 + 10
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Characters RFC 3986 allows literally in a URL besides unreserved ones: gen-delims and sub-delims.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// The byte range of the authority (after `scheme://`, up to the next `/`, `?` or `#`), if any.
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int>? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes.count >= colon + 3,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let start = colon + 3
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        return start..<end
    }

    /// `text` with every byte that may not appear literally in a URL (space, `|`, `"`, `<`, non-ASCII, …)
    /// written as `%XX` of its UTF-8 bytes. Existing `%XX` escapes are kept; a `%` not followed by two hex digits
    /// becomes `%25`; a second `#` becomes `%23`; `[` and `]` are kept only in the host (IPv6 literals).
    package static func encode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let authority = authorityRange(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var inFragment = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var keep = isUnreserved(byte) || isDelimiter(byte)
            if byte == UInt8(ascii: "%") {
                keep = index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            } else if byte == UInt8(ascii: "#") {
                keep = !inFragment
                inFragment = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") {
                keep = authority?.contains(index) ?? false
            }
            if keep {
                output.append(byte)
            } else {
                output.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A form of `text` for deciding whether two URLs name the same resource: percent-encoded as `encode` does,
    /// fragment dropped, `%xx` hex upper-cased, escapes of unreserved characters decoded, scheme and host
    /// lower-cased, default port removed, and an empty path written as `/`.
    package static func normalizedForComparison(_ text: String) -> String {
        var bytes = Array(encode(text.trimmingASCIIWhitespace()).utf8)
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                let value = hexValue(bytes[index + 1]) << 4 | hexValue(bytes[index + 2])
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(value >> 4)], hexDigits[Int(value & 0x0F)]])
                }
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        guard let authority = authorityRange(output) else { return String(decoding: output, as: UTF8.self) }
        let scheme = String(decoding: output[..<(authority.lowerBound - 3)], as: UTF8.self).lowercased()
        var host = String(decoding: output[authority], as: UTF8.self)
        var userInfo = ""
        if let at = host.lastIndex(of: "@") {
            userInfo = String(host[...at])
            host = String(host[host.index(after: at)...])
        }
        host = host.lowercased()
        if scheme == "http", host.hasSuffix(":80") { host.removeLast(3) }
        if scheme == "https", host.hasSuffix(":443") { host.removeLast(4) }
        var rest = String(decoding: output[authority.upperBound...], as: UTF8.self)
        if rest.isEmpty || rest.hasPrefix("?") { rest = "/" + rest }
        return scheme + "://" + userInfo + host + rest
    }
}
