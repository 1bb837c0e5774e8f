/// A JSON value as written in a source document.
///
/// Unlike `JSONSerialization`, nothing is normalized away: numbers keep their
/// literal text, objects keep member order, duplicates and unknown keys, and
/// every nested value carries its `SourceLocation` (through `JSONNode`), so
/// later stages can report precise errors about hand-written book sources.
public indirect enum JSONValue: Sendable, Equatable {
    /// The literal `null`.
    case null
    /// The literals `true` and `false`.
    case bool(Bool)
    /// A number, stored as the literal text exactly as written (for example
    /// `"1687595408889"`, `"-277"` or `"1.5e3"`) so that no precision or
    /// formatting is lost. Use `intValue` or `doubleValue` to convert it.
    case number(String)
    /// A string, with escapes already decoded.
    case string(String)
    /// An array of nodes, in source order.
    case array([JSONNode])
    /// An object, keeping member order and duplicate keys.
    case object(JSONObject)

    /// The string if this is a `.string`, otherwise `nil` (numbers are not converted).
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number as an `Int` if this is a `.number` whose value is an integer
    /// that fits in `Int`. Integral literals written with a fraction or
    /// exponent (`"2.0"`, `"1.5e3"`) are accepted; `"1.5"` and out-of-range
    /// values give `nil`. Strings are not converted.
    public var intValue: Int? {
        guard case .number(let literal) = self else { return nil }
        if let exact = Int(literal) { return exact }
        // Range check then round trip; avoids `rounded()`/`Int(exactly:)`, which need libm's `trunc`.
        guard let double = Double(literal),
              double >= -9_223_372_036_854_775_808.0, double < 9_223_372_036_854_775_808.0
        else { return nil }
        let integer = Int(double)
        return Double(integer) == double ? integer : nil
    }

    /// The number as a `Double` if this is a `.number` (nearest representable
    /// value; a literal beyond `Double`'s range gives an infinity), otherwise `nil`.
    public var doubleValue: Double? {
        guard case .number(let literal) = self else { return nil }
        return Double(literal)
    }

    /// The Boolean if this is a `.bool`, otherwise `nil`.
    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    /// The elements if this is an `.array`, otherwise `nil`.
    public var arrayValue: [JSONNode]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// The object if this is an `.object`, otherwise `nil`.
    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The JSON type name for messages: `"object"`, `"array"`, `"string"`,
    /// `"number"`, `"boolean"` or `"null"`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Standard (RFC 8259) JSON text for this value, e.g. to write a source back.
    ///
    /// Member order and duplicate keys are preserved; number literals are
    /// written as stored; in strings `"`, `\`, control characters and U+FEFF
    /// are escaped while all other characters, including non-ASCII, are kept
    /// as is. A `.number` whose text is not a valid JSON number (only possible
    /// when built by hand) is written as `null` so the output stays valid.
    /// - Parameter pretty: `false` gives compact output with no whitespace;
    ///   `true` puts each member/element on its own line, indented by two
    ///   spaces, with `": "` after keys.
    public func serialized(pretty: Bool = false) -> String {
        String(decoding: serializedBytes(pretty: pretty), as: UTF8.self)
    }

    /// `serialized(pretty:)` as its UTF-8 bytes, without making a `String` of them first.
    func serializedBytes(pretty: Bool = false) -> [UInt8] {
        var output: [UInt8] = []
        JSONValue.write(self, to: &output, pretty: pretty, indent: 0)
        return output
    }

    private static func write(_ value: JSONValue, to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch value {
        case .null:
            output.append(contentsOf: "null".utf8)
        case .bool(let flag):
            output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let literal):
            if isValidNumberLiteral(literal) {
                output.append(contentsOf: literal.utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let text):
            writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            if elements.isEmpty {
                output.append(UInt8(ascii: "]"))
                return
            }
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { newline(to: &output, indent: indent + 1) }
                write(element.value, to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(to: &output, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            if object.members.isEmpty {
                output.append(UInt8(ascii: "}"))
                return
            }
            for (index, member) in object.members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { newline(to: &output, indent: indent + 1) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                write(member.value.value, to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { newline(to: &output, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(to output: inout [UInt8], indent: Int) {
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    /// `"`, `\` and control characters are escaped, and so is U+FEFF (the byte-order mark): Foundation's
    /// JSONSerialization on Linux silently drops a raw U+FEFF at the start of a string or right after an escape,
    /// and editors strip it, so a body that carries one would not survive a round trip.
    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        // Native strings are contiguous UTF-8; `withUTF8` makes a bridged one so first.
        text.withUTF8 { writeEscaped($0, to: &output) }
        output.append(UInt8(ascii: "\""))
    }

    /// The bytes of a string's UTF-8 escaped as `writeString` says; runs that need no escape (most of a
    /// chapter's text) are copied whole.
    private static func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            // Eight bytes at a time while none of them can need an escape (a chapter's text: most of its words).
            if let base = utf8.baseAddress, index + 8 <= utf8.count,
               !mayNeedEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                index += 8
                continue
            }
            let byte = utf8[index]
            // Only control characters, `"`, `\` and the first byte of U+FEFF (EF BB BF) can need an escape.
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xEF else {
                index += 1
                continue
            }
            if byte == 0xEF && !(index + 2 < utf8.count && utf8[index + 1] == 0xBB && utf8[index + 2] == 0xBF) {
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            index += 1
            switch byte {
            case 0xEF:
                output.append(contentsOf: #"\ufeff"#.utf8)
                index += 2
            case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
            case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
            case 0x08: output.append(contentsOf: #"\b"#.utf8)
            case 0x0C: output.append(contentsOf: #"\f"#.utf8)
            default:
                output.append(contentsOf: #"\u00"#.utf8)
                output.append(hexDigit(byte >> 4))
                output.append(hexDigit(byte & 0x0F))
            }
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
    }

    /// Whether any of the eight bytes in `word` is a control character, `"`, `\\` or 0xEF (the bit tricks of
    /// "determine if a word has a byte less than n" and "has a zero byte": exact for whether there is one).
    @inline(__always)
    private static func mayNeedEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func hasZeroByte(_ value: UInt64) -> UInt64 { (value &- ones) & ~value & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        return (control | hasZeroByte(word ^ (ones &* 0x22)) | hasZeroByte(word ^ (ones &* 0x5C))
            | hasZeroByte(word ^ (ones &* 0xEF))) != 0
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// Whether `literal` matches the RFC 8259 number grammar
    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isValidNumberLiteral(_ literal: String) -> Bool {
        let bytes = Array(literal.utf8)
        var index = 0
        func isDigit(_ at: Int) -> Bool {
            at < bytes.count && bytes[at] >= UInt8(ascii: "0") && bytes[at] <= UInt8(ascii: "9")
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard isDigit(index) else { return false }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        if index < bytes.count && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                index += 1
            }
            guard isDigit(index) else { return false }
            while isDigit(index) { index += 1 }
        }
        return index == bytes.count
    }
}
