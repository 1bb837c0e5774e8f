/// Lower-case hexadecimal text for digests, the form checksums are published in and Legado's `md5Encode`
/// returns.
package enum HexEncoding {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `bytes` as two lower-case hex digits per byte.
    package static func lowercase(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
