extension StringProtocol {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks.
    package func trimmingASCIIWhitespace() -> String {
        trimmed(paragraphSpace: false)
    }

    /// The string trimmed of ASCII whitespace, NO-BREAK SPACE, IDEOGRAPHIC SPACE and the typographic spaces
    /// U+2000–U+200A (`&ensp;`, `&emsp;`, `&thinsp;`…), which novel sites use to indent paragraphs (Legado trims
    /// every Unicode space off a paragraph).
    package func trimmingParagraphSpace() -> String {
        trimmed(paragraphSpace: true)
    }

    /// The string without leading and trailing characters from `set` (compared as Unicode scalars).
    package func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let string = String(self)
        let view = string.unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        guard let last = view.lastIndex(where: { !scalars.contains($0) }) else { return "" }
        return String(Substring(view[first...last]))
    }

    private func trimmed(paragraphSpace: Bool) -> String {
        var whole: Substring
        if let string = self as? String {
            whole = string[...]
        } else if let substring = self as? Substring {
            whole = substring
        } else {
            whole = Substring(String(self))
        }
        let kept = whole.withUTF8 { SpaceTrimming.range(of: $0, paragraphSpace: paragraphSpace) }
        let bytes = whole.utf8
        if kept.count == bytes.count, let string = self as? String { return string }
        let start = bytes.index(bytes.startIndex, offsetBy: kept.lowerBound)
        let end = bytes.index(bytes.startIndex, offsetBy: kept.upperBound)
        return String(whole[start..<end])
    }
}

/// Trimming on UTF-8 bytes: it runs for every field of every chapter, so it must not walk Characters.
package enum SpaceTrimming {
    /// The part of `bytes` left after dropping leading and trailing ASCII whitespace (and, with
    /// `paragraphSpace`, NO-BREAK SPACE, IDEOGRAPHIC SPACE and U+2000–U+200A: EN SPACE, EM SPACE…).
    package static func range(of bytes: UnsafeBufferPointer<UInt8>, paragraphSpace: Bool) -> Range<Int> {
        var start = 0
        var end = bytes.count
        while start < end {
            let byte = bytes[start]
            if isASCIISpace(byte) {
                start += 1
            } else if paragraphSpace, byte == 0xC2, end - start >= 2, bytes[start + 1] == 0xA0 {
                start += 2
            } else if paragraphSpace, byte == 0xE3, end - start >= 3, bytes[start + 1] == 0x80, bytes[start + 2] == 0x80 {
                start += 3
            } else if paragraphSpace, byte == 0xE2, end - start >= 3, bytes[start + 1] == 0x80, bytes[start + 2] <= 0x8A {
                start += 3  // U+2000–U+200A (E2 80 80–8A); U+200B ZERO WIDTH SPACE is not a space
            } else {
                break
            }
        }
        while start < end {
            let byte = bytes[end - 1]
            if isASCIISpace(byte) {
                end -= 1
            } else if paragraphSpace, byte == 0xA0, end - start >= 2, bytes[end - 2] == 0xC2 {
                end -= 2
            } else if paragraphSpace, byte == 0x80, end - start >= 3, bytes[end - 2] == 0x80, bytes[end - 3] == 0xE3 {
                end -= 3
            } else if paragraphSpace, byte >= 0x80, byte <= 0x8A, end - start >= 3, bytes[end - 2] == 0x80, bytes[end - 3] == 0xE2 {
                end -= 3
            } else {
                break
            }
        }
        return start..<end
    }

    /// Whether `byte` is ASCII whitespace: space, tab, line feed, vertical tab, form feed, carriage return.
    package static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }
}
