/// Base64 decoding as Hutool's (and so Legado's `java.base64Decode`) reads it: the standard and URL-safe
/// alphabets both, padding optional, whitespace and other stray characters skipped.
enum LenientBase64 {
    private static let values: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (index, byte) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(byte)] = Int8(index)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()

    /// The bytes `text` encodes; a trailing partial group of one character is dropped.
    static func decode(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: "=") { break }
            let value = values[Int(byte)]
            if value < 0 { continue }
            buffer = (buffer << 6) | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8((buffer >> UInt32(bits)) & 0xFF))
            }
        }
        return output
    }
}
