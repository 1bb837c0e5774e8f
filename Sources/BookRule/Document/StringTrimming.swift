extension StringProtocol {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks.
    func trimmingASCIIWhitespace() -> String {
        trimmed(paragraphSpace: false)
    }

    /// The string trimmed of ASCII whitespace, NO-BREAK SPACE and IDEOGRAPHIC SPACE, which novel sites use to
    /// indent paragraphs.
    func trimmingParagraphSpace() -> String {
        trimmed(paragraphSpace: true)
    }

    /// The string without leading and trailing characters from `set` (compared as Unicode scalars).
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let string = String(self)
        let view = string.unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        guard let last = view.lastIndex(where: { !scalars.contains($0) }) else { return "" }
        return String(Substring(view[first...last]))
    }

    /// Trims on UTF-8 bytes: this runs for every field of every chapter, so it must not walk Characters.
    private func trimmed(paragraphSpace: Bool) -> String {
        let whole: Substring
        if let string = self as? String {
            whole = string[...]
        } else if let substring = self as? Substring {
            whole = substring
        } else {
            whole = Substring(String(self))
        }
        let bytes = whole.utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end {
            let width = Self.spaceWidth(bytes, at: start, paragraphSpace: paragraphSpace)
            if width == 0 { break }
            start = bytes.index(start, offsetBy: width)
        }
        while start < end {
            let width = Self.spaceWidthBefore(bytes, end: end, start: start, paragraphSpace: paragraphSpace)
            if width == 0 { break }
            end = bytes.index(end, offsetBy: -width)
        }
        if start == bytes.startIndex && end == bytes.endIndex, let string = self as? String { return string }
        return String(whole[start..<end])
    }

    private static func isASCIISpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    /// The byte length of the space character starting at `index`, or 0.
    private static func spaceWidth(_ bytes: Substring.UTF8View, at index: String.Index, paragraphSpace: Bool) -> Int {
        let byte = bytes[index]
        if isASCIISpace(byte) { return 1 }
        guard paragraphSpace else { return 0 }
        let second = bytes.index(after: index)
        if byte == 0xC2, second < bytes.endIndex, bytes[second] == 0xA0 { return 2 }
        if byte == 0xE3, second < bytes.endIndex, bytes[second] == 0x80 {
            let third = bytes.index(after: second)
            if third < bytes.endIndex, bytes[third] == 0x80 { return 3 }
        }
        return 0
    }

    /// The byte length of the space character ending just before `end`, or 0.
    private static func spaceWidthBefore(_ bytes: Substring.UTF8View, end: String.Index, start: String.Index, paragraphSpace: Bool) -> Int {
        let last = bytes.index(before: end)
        if isASCIISpace(bytes[last]) { return 1 }
        guard paragraphSpace, bytes.distance(from: start, to: end) >= 2 else { return 0 }
        let previous = bytes.index(before: last)
        if bytes[previous] == 0xC2 && bytes[last] == 0xA0 { return 2 }
        guard bytes.distance(from: start, to: end) >= 3 else { return 0 }
        let first = bytes.index(before: previous)
        if bytes[first] == 0xE3 && bytes[previous] == 0x80 && bytes[last] == 0x80 { return 3 }
        return 0
    }
}
