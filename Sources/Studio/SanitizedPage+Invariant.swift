extension SanitizedPage {
    /// The first piece of `html` (a `SanitizedPage`'s output) that its allow-list does not account for, read as a
    /// browser's tokenizer reads it; nil when there is none. What the tests and the `studio` fuzz target check:
    /// every `<` starts an allow-listed start or end tag (or the studio's own head), every attribute is
    /// allow-listed and quoted, and the text inside `style`, `textarea` and `title` (which the browser does not
    /// read as markup) has no `<` before its end tag. Since the writer escapes every `<` of text and values,
    /// nothing else can become an element in any parsing mode.
    package static func strayMarkup(in html: [UInt8]) -> String? {
        var reader = TagReader(bytes: html)
        if html.starts(with: Array(doctype.utf8)) { reader.index = doctype.utf8.count }
        while let open = reader.next(UInt8(ascii: "<")) {
            reader.index = open
            if reader.skip(studioHead) { continue }
            reader.index += 1
            let closing = reader.skip([UInt8(ascii: "/")])
            let name = reader.name()
            guard elements.contains(name) else { return "<\(closing ? "/" : "")\(name) at byte \(open)" }
            if closing {
                guard reader.skip([UInt8(ascii: ">")]) else { return "a malformed end tag at byte \(open)" }
                continue
            }
            while !reader.skip([UInt8(ascii: ">")]) {
                guard reader.skip([UInt8(ascii: " ")]) else { return "a malformed <\(name)> at byte \(open)" }
                let attribute = reader.name()
                guard isWritten(attribute: attribute) else { return "the attribute \(attribute) of <\(name)> at byte \(open)" }
                guard reader.skip(Array("=\"".utf8)), let quote = reader.next(UInt8(ascii: "\"")) else {
                    return "an unquoted \(attribute) at byte \(open)"
                }
                guard !html[reader.index..<quote].contains(UInt8(ascii: "<")) else { return "a < in \(attribute) at byte \(open)" }
                reader.index = quote + 1
            }
            if textOnlyElements.contains(name) {
                let end = Array("</\(name)>".utf8)
                guard let next = reader.next(UInt8(ascii: "<")) else { return "<\(name)> at byte \(open) is not closed" }
                reader.index = next
                guard reader.skip(end) else { return "markup inside <\(name)> at byte \(open)" }
            }
        }
        return nil
    }

    /// Whether the writer may have written `attribute`: an allow-listed one, the element number, or a renamed
    /// URL attribute.
    private static func isWritten(attribute: String) -> Bool {
        if attribute == "data-br" || isAllowedAttribute(attribute) { return true }
        guard attribute.hasPrefix("data-br-") else { return false }
        let original = attribute.dropFirst("data-br-".count)
        return urlAttributes.contains { $0.replacingOccurrences(of: ":", with: "-") == original }
    }

    /// A cursor over the bytes for `strayMarkup(in:)`.
    private struct TagReader {
        let bytes: [UInt8]
        var index = 0

        /// Where the next `byte` is, from the cursor on.
        func next(_ byte: UInt8) -> Int? {
            bytes[min(index, bytes.count)...].firstIndex(of: byte)
        }

        /// Moves past `expected` when the bytes at the cursor are exactly it.
        mutating func skip(_ expected: [UInt8]) -> Bool {
            guard bytes[min(index, bytes.count)...].starts(with: expected) else { return false }
            index += expected.count
            return true
        }

        /// The name at the cursor: lower-case letters, digits, `-` (what the writer writes), as read.
        mutating func name() -> String {
            let start = index
            while index < bytes.count, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[index])
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }
    }
}
