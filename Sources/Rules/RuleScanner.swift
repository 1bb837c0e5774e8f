/// Finds separators in rule text while skipping what is inside brackets, parentheses, braces and quotes, so
/// `//a[@title='x && y']` is one rule and not two.
enum RuleScanner {
    /// Byte offsets (into `text.utf8`) where `separator` starts at nesting depth 0 outside quotes.
    static func topLevelOccurrences(of separator: String, in text: String) -> [Int] {
        let bytes = Array(text.utf8)
        let needle = Array(separator.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return [] }
        var result: [Int] = []
        var depth = 0
        var quote: UInt8? = nil
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == UInt8(ascii: "\\") { index += 2; continue }
                if byte == open { quote = nil }
                index += 1
                continue
            }
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                quote = byte
            case UInt8(ascii: "["), UInt8(ascii: "("), UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "]"), UInt8(ascii: ")"), UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            default:
                if depth == 0, byte == needle[0], index + needle.count <= bytes.count,
                   Array(bytes[index..<(index + needle.count)]) == needle {
                    result.append(index)
                    index += needle.count
                    continue
                }
            }
            index += 1
        }
        return result
    }

    /// `text` split at every top-level `separator`.
    static func split(_ text: String, by separator: String) -> [String] {
        let offsets = topLevelOccurrences(of: separator, in: text)
        guard !offsets.isEmpty else { return [text] }
        let bytes = Array(text.utf8)
        var parts: [String] = []
        var start = 0
        for offset in offsets {
            parts.append(String(decoding: bytes[start..<offset], as: UTF8.self))
            start = offset + separator.utf8.count
        }
        parts.append(String(decoding: bytes[start...], as: UTF8.self))
        return parts
    }
}
