/// Parses JSON text into `JSONNode` trees that remember where every value was
/// written, for hand-written book sources (Legado's format).
///
/// Strict mode accepts exactly RFC 8259 JSON. Lenient mode, meant for the small
/// option objects users write by hand inside URLs, for example
/// `{'method':'POST', body: 'k={{key}}', }`, additionally accepts
/// single-quoted strings (with `\'` as an extra escape), unquoted keys and
/// unquoted string values (`{bid:id}`, `{url:$.link}`), trailing commas in
/// arrays and objects, `;` for `,` and `=` or `=>` for `:`, raw line breaks
/// and tabs inside strings, a `{{…}}` template as a value (kept as the string
/// `{{…}}`), and `//` and `/* */` comments. An unquoted word runs up
/// to whitespace or one of `/ \ ; # = { } [ ] : ,`, as in Gson's lenient
/// reader, which is what Legado reads these objects with; `true`, `false` and
/// `null` keep their meaning, and a bare word is not a whole document.
///
/// In both modes: input is UTF-8 (a leading UTF-8 byte order mark is skipped),
/// `\u` surrogate pairs are combined and a lone surrogate becomes U+FFFD,
/// numbers keep their literal text, and nesting deeper than `maximumDepth`
/// is rejected with an error instead of exhausting the stack. Errors are
/// `JSONSyntaxError`s naming the line and column of the problem.
public enum JSONParser {
    /// The deepest allowed nesting of arrays and objects (512). Deeper input
    /// is rejected with "nesting too deep" so hostile files cannot overflow
    /// the stack.
    public static let maximumDepth = 512

    /// Parses a JSON document held in a string.
    /// - Parameters:
    ///   - text: The whole document: one value, optionally surrounded by whitespace.
    ///   - lenient: Also accept single-quoted strings, unquoted keys, trailing
    ///     commas and comments (see the type documentation).
    /// - Returns: The top-level value with its location.
    /// - Throws: `JSONSyntaxError` naming the line and column of the first problem.
    public static func parse(_ text: String, lenient: Bool = false) throws(JSONSyntaxError) -> JSONNode {
        var text = text
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONSyntaxError) -> JSONNode in
                try parse(buffer: buffer, lenient: lenient)
            }
        }
        return try result.get()
    }

    /// Parses a JSON document from UTF-8 bytes, for example a file's contents.
    /// A leading UTF-8 byte order mark is skipped; invalid UTF-8 is reported
    /// as a `JSONSyntaxError` at the offending byte.
    /// - Parameters:
    ///   - bytes: The whole document, UTF-8 encoded.
    ///   - lenient: Also accept single-quoted strings, unquoted keys, trailing
    ///     commas and comments (see the type documentation).
    /// - Returns: The top-level value with its location.
    /// - Throws: `JSONSyntaxError` naming the line and column of the first problem.
    public static func parse(_ bytes: [UInt8], lenient: Bool = false) throws(JSONSyntaxError) -> JSONNode {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONSyntaxError) -> JSONNode in
                try parse(buffer: buffer, lenient: lenient)
            }
        }
        return try result.get()
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>, lenient: Bool) throws(JSONSyntaxError) -> JSONNode {
        guard let base = buffer.baseAddress, !buffer.isEmpty else {
            throw JSONSyntaxError(
                location: SourceLocation(line: 1, column: 1),
                message: "unexpected end of input, expected a value (the input is empty)")
        }
        var reader = Reader(bytes: base, count: buffer.count, lenient: lenient)
        return try reader.parseDocument()
    }
}

// MARK: - Reader

extension JSONParser {
    /// The parsing state: a cursor over UTF-8 bytes plus a cache that turns
    /// byte offsets into line/column locations in one forward pass overall.
    private struct Reader {
        private let bytes: UnsafePointer<UInt8>
        private let end: Int
        private let start: Int
        private let lenient: Bool
        private var position: Int
        private var depth = 0
        private var scratch: [UInt8] = []
        private var cachedOffset: Int
        private var cachedLine = 1
        private var cachedColumn = 1

        init(bytes: UnsafePointer<UInt8>, count: Int, lenient: Bool) {
            self.bytes = bytes
            self.end = count
            let hasBOM = count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
            self.start = hasBOM ? 3 : 0
            self.position = start
            self.cachedOffset = start
            self.lenient = lenient
        }

        // MARK: Values

        mutating func parseDocument() throws(JSONSyntaxError) -> JSONNode {
            let node = try parseValue()
            try skipWhitespace()
            if position < end {
                throw unexpected("extra data after the top-level value", at: position)
            }
            return node
        }

        private mutating func parseValue() throws(JSONSyntaxError) -> JSONNode {
            try skipWhitespace()
            guard position < end else {
                throw unexpected("expected a value", at: position)
            }
            let first = position
            let location = location(at: first)
            let value: JSONValue
            switch bytes[first] {
            case Byte.quote:
                value = .string(try parseString(quote: Byte.quote))
            case Byte.openBrace where lenient && first + 1 < end && bytes[first + 1] == Byte.openBrace:
                // `"keyword":{{key}}` in URL options: Legado substitutes the template before it reads the JSON,
                // so the value is what the template gives, as a string; it stays a template for the caller. No
                // JSON object can start with `{{`, so nothing that parsed before changes.
                value = .string(try parseTemplateWord())
            case Byte.openBrace:
                value = .object(try parseObject())
            case Byte.openBracket:
                value = .array(try parseArray())
            case Byte.minus, Byte.zero...Byte.nine:
                value = .number(try parseNumber())
            case Byte.apostrophe:
                guard lenient else { throw singleQuoteError(at: first) }
                value = .string(try parseString(quote: Byte.apostrophe))
            default:
                value = try parseLiteral()
            }
            return JSONNode(value, location: location)
        }

        /// A `{{…}}` template as a lenient value: up to the first `}}`.
        private mutating func parseTemplateWord() throws(JSONSyntaxError) -> String {
            let first = position
            var index = first + 2
            while index + 1 < end, !(bytes[index] == Byte.closeBrace && bytes[index + 1] == Byte.closeBrace) { index += 1 }
            guard index + 1 < end else { throw error(at: first, "'{{' is not closed by '}}'") }
            position = index + 2
            return String(decoding: UnsafeBufferPointer(start: bytes + first, count: position - first), as: UTF8.self)
        }

        private mutating func parseLiteral() throws(JSONSyntaxError) -> JSONValue {
            let first = position
            let wordEnd = identifierEnd(from: first)
            let length = wordEnd - first
            if length == 4 && matches("true", at: first) {
                position = wordEnd
                return .bool(true)
            }
            if length == 5 && matches("false", at: first) {
                position = wordEnd
                return .bool(false)
            }
            if length == 4 && matches("null", at: first) {
                position = wordEnd
                return .null
            }
            // Inside an object or array only: a bare word as the whole document (a header written as
            // `Mozilla/5.0 …`) is better told "strings must be in quotes" than read as a string.
            if lenient, depth > 0 {
                let unquotedEnd = unquotedEnd(from: first)
                if unquotedEnd > first {
                    position = unquotedEnd
                    return .string(String(decoding: UnsafeBufferPointer(start: bytes + first, count: unquotedEnd - first),
                                          as: UTF8.self))
                }
            }
            if length > 0 {
                throw error(at: first, "expected a value, found \(describe(at: first)) "
                    + "(strings must be in quotes; the only literals are true, false and null)")
            }
            throw unexpected("expected a value", at: first)
        }

        private mutating func parseObject() throws(JSONSyntaxError) -> JSONObject {
            let open = position
            try enterContainer(at: open)
            position += 1
            var members: [(key: String, value: JSONNode)] = []
            try skipWhitespace()
            if position < end && bytes[position] == Byte.closeBrace {
                position += 1
                depth -= 1
                return JSONObject(members: members)
            }
            var afterComma = false
            while true {
                let key = try parseKey(afterComma: afterComma, open: open)
                try skipWhitespace()
                if lenient, position < end, bytes[position] == Byte.equals {
                    // Gson's lenient reader also takes `=` and `=>` between a name and its value.
                    position += position + 1 < end && bytes[position + 1] == Byte.greaterThan ? 2 : 1
                } else {
                    guard position < end, bytes[position] == Byte.colon else {
                        throw unexpected("expected ':' after the key \(quoted(key))", at: position)
                    }
                    position += 1
                }
                let value = try parseValue()
                members.append((key: key, value: value))
                try skipWhitespace()
                guard position < end else {
                    throw unexpected("expected ',' or '}' after an object member", at: position, open: open)
                }
                let byte = bytes[position]
                // Gson's lenient reader takes `;` for `,`.
                if byte == Byte.comma || (lenient && byte == Byte.semicolon) {
                    let comma = position
                    position += 1
                    try skipWhitespace()
                    if position < end && bytes[position] == Byte.closeBrace {
                        guard lenient else {
                            throw error(at: comma, "trailing comma is not allowed; remove this ',' before '}'")
                        }
                        position += 1
                        break
                    }
                    afterComma = true
                } else if byte == Byte.closeBrace {
                    position += 1
                    break
                } else {
                    throw unexpected("expected ',' or '}' after an object member", at: position, open: open)
                }
            }
            depth -= 1
            return JSONObject(members: members)
        }

        private mutating func parseKey(afterComma: Bool, open: Int) throws(JSONSyntaxError) -> String {
            let expectation = afterComma ? "expected a key in double quotes" : "expected a key in double quotes or '}'"
            guard position < end else {
                throw unexpected(expectation, at: position, open: open)
            }
            let first = position
            let byte = bytes[first]
            if byte == Byte.quote {
                return try parseString(quote: Byte.quote)
            }
            if byte == Byte.apostrophe {
                guard lenient else { throw singleQuoteError(at: first) }
                return try parseString(quote: Byte.apostrophe)
            }
            let wordEnd = lenient ? unquotedEnd(from: first) : identifierEnd(from: first)
            if wordEnd > first {
                guard lenient else {
                    throw error(at: first, "keys must be in double quotes, found unquoted \(describe(at: first))")
                }
                position = wordEnd
                return String(decoding: UnsafeBufferPointer(start: bytes + first, count: wordEnd - first), as: UTF8.self)
            }
            throw unexpected(expectation, at: first, open: open)
        }

        private mutating func parseArray() throws(JSONSyntaxError) -> [JSONNode] {
            let open = position
            try enterContainer(at: open)
            position += 1
            var elements: [JSONNode] = []
            try skipWhitespace()
            if position < end && bytes[position] == Byte.closeBracket {
                position += 1
                depth -= 1
                return elements
            }
            while true {
                elements.append(try parseValue())
                try skipWhitespace()
                guard position < end else {
                    throw unexpected("expected ',' or ']' after an array element", at: position, open: open)
                }
                let byte = bytes[position]
                if byte == Byte.comma || (lenient && byte == Byte.semicolon) {
                    let comma = position
                    position += 1
                    try skipWhitespace()
                    if position < end && bytes[position] == Byte.closeBracket {
                        guard lenient else {
                            throw error(at: comma, "trailing comma is not allowed; remove this ',' before ']'")
                        }
                        position += 1
                        break
                    }
                } else if byte == Byte.closeBracket {
                    position += 1
                    break
                } else {
                    throw unexpected("expected ',' or ']' after an array element", at: position, open: open)
                }
            }
            depth -= 1
            return elements
        }

        private mutating func enterContainer(at open: Int) throws(JSONSyntaxError) {
            depth += 1
            if depth > JSONParser.maximumDepth {
                throw error(at: open, "nesting too deep: more than \(JSONParser.maximumDepth) nested arrays and objects")
            }
        }

        /// Reads `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` and returns its text.
        private mutating func parseNumber() throws(JSONSyntaxError) -> String {
            let first = position
            if bytes[position] == Byte.minus {
                position += 1
                guard position < end, isDigit(bytes[position]) else {
                    throw unexpected("expected a digit after '-' in a number", at: position)
                }
            }
            if bytes[position] == Byte.zero {
                position += 1
                if position < end && isDigit(bytes[position]) {
                    let digitsEnd = digitsEnd(from: position)
                    throw error(at: first, "invalid number '\(text(first, digitsEnd))': "
                        + "leading zeros are not allowed")
                }
            } else {
                position = digitsEnd(from: position)
            }
            if position < end && bytes[position] == Byte.dot {
                position += 1
                guard position < end, isDigit(bytes[position]) else {
                    throw unexpected("expected a digit after '.' in a number", at: position)
                }
                position = digitsEnd(from: position)
            }
            if position < end && (bytes[position] | 0x20) == Byte.lowercaseE {
                position += 1
                if position < end && (bytes[position] == Byte.plus || bytes[position] == Byte.minus) {
                    position += 1
                }
                guard position < end, isDigit(bytes[position]) else {
                    throw unexpected("expected a digit in the exponent of a number", at: position)
                }
                position = digitsEnd(from: position)
            }
            return text(first, position)
        }

        // MARK: Strings

        /// Reads a string starting at the opening `quote` and returns its decoded contents.
        private mutating func parseString(quote: UInt8) throws(JSONSyntaxError) -> String {
            let opening = position
            position += 1
            var runStart = position
            var usesScratch = false
            while position < end {
                let byte = bytes[position]
                if byte == quote {
                    let run = UnsafeBufferPointer(start: bytes + runStart, count: position - runStart)
                    position += 1
                    if !usesScratch {
                        return String(decoding: run, as: UTF8.self)
                    }
                    scratch.append(contentsOf: run)
                    return String(decoding: scratch, as: UTF8.self)
                }
                if byte == Byte.backslash {
                    if !usesScratch {
                        scratch.removeAll(keepingCapacity: true)
                        usesScratch = true
                    }
                    scratch.append(contentsOf: UnsafeBufferPointer(start: bytes + runStart, count: position - runStart))
                    try parseEscape(opening: opening)
                    runStart = position
                } else if byte < 0x20 {
                    // Gson takes raw line breaks and tabs in a string as they are.
                    guard lenient else { throw controlCharacterError(at: position, opening: opening) }
                    position += 1
                } else if byte < 0x80 {
                    position += 1
                } else {
                    let length = utf8SequenceLength(at: position)
                    guard length > 0 else { throw invalidUTF8(at: position) }
                    position += length
                }
            }
            throw unterminatedString(opening: opening)
        }

        /// Decodes the escape at `position` (a backslash) into `scratch`.
        private mutating func parseEscape(opening: Int) throws(JSONSyntaxError) {
            let backslash = position
            position += 1
            guard position < end else {
                throw unterminatedString(opening: opening)
            }
            let byte = bytes[position]
            position += 1
            switch byte {
            case Byte.quote, Byte.backslash, Byte.slash: scratch.append(byte)
            case Byte.lowercaseB: scratch.append(0x08)
            case Byte.lowercaseF: scratch.append(0x0C)
            case Byte.lowercaseN: scratch.append(0x0A)
            case Byte.lowercaseR: scratch.append(0x0D)
            case Byte.lowercaseT: scratch.append(0x09)
            case Byte.apostrophe where lenient: scratch.append(byte)
            case Byte.lowercaseU:
                let unit = try parseHexEscape(at: backslash)
                var scalar: UInt32 = 0xFFFD
                if unit < 0xD800 || unit > 0xDFFF {
                    scalar = unit
                } else if unit <= 0xDBFF, position + 6 <= end,
                          bytes[position] == Byte.backslash, bytes[position + 1] == Byte.lowercaseU,
                          let low = hexValue(at: position + 2), low >= 0xDC00, low <= 0xDFFF {
                    scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    position += 6
                }
                appendUTF8(scalar)
            default:
                let shown: String
                if byte >= 0x80 {
                    guard utf8SequenceLength(at: backslash + 1) > 0 else { throw invalidUTF8(at: backslash + 1) }
                    shown = scalarText(at: backslash + 1, prefix: "\\")
                } else if byte < 0x20 || byte == 0x7F {
                    shown = "'\\' followed by \(hexCode(UInt32(byte)))"
                } else {
                    shown = "'\\\(Character(Unicode.Scalar(byte)))'"
                }
                let valid = lenient ? #"\" \' \\ \/ \b \f \n \r \t and \uXXXX"# : #"\" \\ \/ \b \f \n \r \t and \uXXXX"#
                throw error(at: backslash, "invalid escape \(shown) in string; valid escapes are \(valid)")
            }
        }

        /// Reads the four hex digits of a `\u` escape whose backslash is at `backslash`.
        private mutating func parseHexEscape(at backslash: Int) throws(JSONSyntaxError) -> UInt32 {
            if position + 4 <= end, let value = hexValue(at: position) {
                position += 4
                return value
            }
            var bad = position
            while bad < end && bad < position + 4 && hexDigitValue(bytes[bad]) != nil { bad += 1 }
            let found = bad < end ? describe(at: bad) : "the end of input"
            throw error(at: backslash, "invalid escape '\\u\(text(position, bad))': expected 4 hex digits after '\\u', found \(found)")
        }

        private mutating func appendUTF8(_ scalar: UInt32) {
            switch scalar {
            case ..<0x80:
                scratch.append(UInt8(scalar))
            case ..<0x800:
                scratch.append(UInt8(0xC0 | (scalar >> 6)))
                scratch.append(UInt8(0x80 | (scalar & 0x3F)))
            case ..<0x10000:
                scratch.append(UInt8(0xE0 | (scalar >> 12)))
                scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                scratch.append(UInt8(0x80 | (scalar & 0x3F)))
            default:
                scratch.append(UInt8(0xF0 | (scalar >> 18)))
                scratch.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
                scratch.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
                scratch.append(UInt8(0x80 | (scalar & 0x3F)))
            }
        }

        // MARK: Whitespace and comments

        private mutating func skipWhitespace() throws(JSONSyntaxError) {
            while position < end {
                let byte = bytes[position]
                if byte == Byte.space || byte == Byte.newline || byte == Byte.carriageReturn || byte == Byte.tab {
                    position += 1
                } else if byte == Byte.slash && lenient {
                    guard try skipComment() else { return }
                } else {
                    return
                }
            }
        }

        /// Skips a comment at `position` (a slash); returns false if it is not one.
        private mutating func skipComment() throws(JSONSyntaxError) -> Bool {
            let opening = position
            guard opening + 1 < end else { return false }
            let kind = bytes[opening + 1]
            if kind == Byte.slash {
                position += 2
                while position < end {
                    let byte = bytes[position]
                    if byte == Byte.newline || byte == Byte.carriageReturn { break }
                    position += try characterLength(at: position)
                }
                return true
            }
            if kind == Byte.asterisk {
                position += 2
                while position + 1 < end {
                    if bytes[position] == Byte.asterisk && bytes[position + 1] == Byte.slash {
                        position += 2
                        return true
                    }
                    position += try characterLength(at: position)
                }
                throw error(at: opening, "unterminated comment: the input ends before the closing '*/'")
            }
            return false
        }

        private mutating func characterLength(at offset: Int) throws(JSONSyntaxError) -> Int {
            if bytes[offset] < 0x80 { return 1 }
            let length = utf8SequenceLength(at: offset)
            guard length > 0 else { throw invalidUTF8(at: offset) }
            return length
        }

        // MARK: Byte helpers

        private func isDigit(_ byte: UInt8) -> Bool {
            byte &- Byte.zero < 10
        }

        private func digitsEnd(from offset: Int) -> Int {
            var index = offset
            while index < end && isDigit(bytes[index]) { index += 1 }
            return index
        }

        private func isIdentifierByte(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte | 0x20) &- Byte.lowercaseA < 26 || byte == Byte.underscore || byte == Byte.dollar
        }

        /// End of the run of ASCII letters, digits, `_` and `$` starting at `offset`.
        private func identifierEnd(from offset: Int) -> Int {
            var index = offset
            while index < end && isIdentifierByte(bytes[index]) { index += 1 }
            return index
        }

        /// End of an unquoted word of lenient mode starting at `offset`: up to whitespace or one of
        /// `/ \ ; # = { } [ ] : ,` (Gson's lenient reader stops at the same bytes).
        private func unquotedEnd(from offset: Int) -> Int {
            var index = offset
            while index < end {
                switch bytes[index] {
                case Byte.slash, Byte.backslash, Byte.semicolon, Byte.hash, Byte.equals, Byte.openBrace, Byte.closeBrace,
                     Byte.openBracket, Byte.closeBracket, Byte.colon, Byte.comma, Byte.space, Byte.tab, Byte.formFeed,
                     Byte.carriageReturn, Byte.newline:
                    return index
                default:
                    index += 1
                }
            }
            return index
        }

        private func matches(_ word: StaticString, at offset: Int) -> Bool {
            let count = word.utf8CodeUnitCount
            guard offset + count <= end else { return false }
            let pointer = word.utf8Start
            for index in 0..<count where bytes[offset + index] != pointer[index] {
                return false
            }
            return true
        }

        private func hexDigitValue(_ byte: UInt8) -> UInt32? {
            if isDigit(byte) { return UInt32(byte - Byte.zero) }
            let lower = byte | 0x20
            if lower >= Byte.lowercaseA && lower <= Byte.lowercaseF { return UInt32(lower - Byte.lowercaseA + 10) }
            return nil
        }

        /// The value of four hex digits at `offset`, or nil. The caller checks bounds.
        private func hexValue(at offset: Int) -> UInt32? {
            var value: UInt32 = 0
            for index in offset..<(offset + 4) {
                guard let digit = hexDigitValue(bytes[index]) else { return nil }
                value = value << 4 | digit
            }
            return value
        }

        /// Length of the well-formed UTF-8 sequence of a non-ASCII scalar at `offset`, or 0 if it is ill-formed.
        private func utf8SequenceLength(at offset: Int) -> Int {
            let lead = bytes[offset]
            func continuation(_ index: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
                index < end && bytes[index] >= low && bytes[index] <= high
            }
            switch lead {
            case 0xC2...0xDF:
                return continuation(offset + 1) ? 2 : 0
            case 0xE0...0xEF:
                let low: UInt8 = lead == 0xE0 ? 0xA0 : 0x80
                let high: UInt8 = lead == 0xED ? 0x9F : 0xBF
                return continuation(offset + 1, low, high) && continuation(offset + 2) ? 3 : 0
            case 0xF0...0xF4:
                let low: UInt8 = lead == 0xF0 ? 0x90 : 0x80
                let high: UInt8 = lead == 0xF4 ? 0x8F : 0xBF
                return continuation(offset + 1, low, high) && continuation(offset + 2) && continuation(offset + 3) ? 4 : 0
            default:
                return 0
            }
        }

        private func text(_ from: Int, _ to: Int) -> String {
            String(decoding: UnsafeBufferPointer(start: bytes + from, count: to - from), as: UTF8.self)
        }

        // MARK: Locations

        /// The line and column of the byte at `offset`. Amortized O(1) for the
        /// increasing offsets of successive values; errors may rescan from the start.
        private mutating func location(at offset: Int) -> SourceLocation {
            if offset < cachedOffset {
                cachedOffset = start
                cachedLine = 1
                cachedColumn = 1
            }
            var index = cachedOffset
            var line = cachedLine
            var column = cachedColumn
            while index < offset {
                let byte = bytes[index]
                if byte > Byte.carriageReturn {
                    if byte & 0xC0 != 0x80 { column += 1 }
                } else if byte == Byte.newline {
                    if index == start || bytes[index - 1] != Byte.carriageReturn { line += 1 }
                    column = 1
                } else if byte == Byte.carriageReturn {
                    line += 1
                    column = 1
                } else {
                    column += 1
                }
                index += 1
            }
            cachedOffset = offset
            cachedLine = line
            cachedColumn = column
            return SourceLocation(line: line, column: column)
        }

        // MARK: Errors

        private mutating func error(at offset: Int, _ message: String) -> JSONSyntaxError {
            JSONSyntaxError(location: location(at: offset), message: message)
        }

        /// "<expectation>, found X", or "unexpected end of input, <expectation>"; for an
        /// unclosed container, `open` names where it starts.
        private mutating func unexpected(_ expectation: String, at offset: Int, open: Int? = nil) -> JSONSyntaxError {
            if offset >= end {
                var message = "unexpected end of input, \(expectation)"
                if let open {
                    let kind = bytes[open] == Byte.openBrace ? "object" : "array"
                    message += " (the \(kind) starting at \(location(at: open)) is not closed)"
                }
                return error(at: offset, message)
            }
            let byte = bytes[offset]
            if byte >= 0x80 && utf8SequenceLength(at: offset) == 0 {
                return invalidUTF8(at: offset)
            }
            if byte == Byte.slash && !lenient && offset + 1 < end
                && (bytes[offset + 1] == Byte.slash || bytes[offset + 1] == Byte.asterisk) {
                return error(at: offset, "comments are not allowed in JSON")
            }
            return error(at: offset, "\(expectation), found \(describe(at: offset))")
        }

        private mutating func unterminatedString(opening: Int) -> JSONSyntaxError {
            let quote = bytes[opening] == Byte.quote ? "'\"'" : "\"'\""
            return error(at: opening, "unterminated string: the input ends before the closing \(quote)")
        }

        private mutating func singleQuoteError(at offset: Int) -> JSONSyntaxError {
            error(at: offset, "single-quoted strings are not allowed in JSON; use double quotes")
        }

        private mutating func controlCharacterError(at offset: Int, opening: Int) -> JSONSyntaxError {
            let byte = bytes[offset]
            if byte == Byte.newline || byte == Byte.carriageReturn {
                let started = location(at: opening)
                return error(at: offset, "line break inside a string; use \\n to write one, "
                    + "or add the missing closing quote (the string starts at \(started))")
            }
            let escape = switch byte {
            case Byte.tab: "\\t"
            case 0x08: "\\b"
            case 0x0C: "\\f"
            default: "\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            }
            return error(at: offset, "raw control character \(hexCode(UInt32(byte))) in string; use \(escape)")
        }

        private mutating func invalidUTF8(at offset: Int) -> JSONSyntaxError {
            // Find the first byte of the sequence that breaks the UTF-8 rules.
            let lead = bytes[offset]
            var bad = offset
            let expected: Int = switch lead {
            case 0xC2...0xDF: 2
            case 0xE0...0xEF: 3
            case 0xF0...0xF4: 4
            default: 1
            }
            if expected > 1 {
                bad += 1
                while bad < offset + expected && bad < end && utf8PrefixIsValid(offset, through: bad) { bad += 1 }
                if bad >= end {
                    return error(at: offset, "invalid UTF-8: byte sequence cut off by the end of input; "
                        + "the file must be saved as UTF-8")
                }
            }
            return error(at: bad, "invalid UTF-8 byte \(hexByte(bytes[bad])); the file must be saved as UTF-8")
        }

        private func utf8PrefixIsValid(_ lead: Int, through index: Int) -> Bool {
            let byte = bytes[index]
            if index == lead + 1 {
                switch bytes[lead] {
                case 0xE0: return byte >= 0xA0 && byte <= 0xBF
                case 0xED: return byte >= 0x80 && byte <= 0x9F
                case 0xF0: return byte >= 0x90 && byte <= 0xBF
                case 0xF4: return byte >= 0x80 && byte <= 0x8F
                default: break
                }
            }
            return byte & 0xC0 == 0x80
        }

        /// A short human description of what is at `offset`: a word, a character or a code point.
        private func describe(at offset: Int) -> String {
            let byte = bytes[offset]
            if isIdentifierByte(byte) {
                let wordEnd = min(identifierEnd(from: offset), offset + 40)
                let ellipsis = wordEnd < identifierEnd(from: offset) ? "…" : ""
                return "'\(text(offset, wordEnd))\(ellipsis)'"
            }
            if byte < 0x20 || byte == 0x7F {
                return hexCode(UInt32(byte))
            }
            if byte < 0x80 {
                return "'\(Character(Unicode.Scalar(byte)))'"
            }
            return scalarText(at: offset)
        }

        /// The well-formed non-ASCII scalar at `offset` in quotes, then its code point: `'，' (U+FF0C)`.
        private func scalarText(at offset: Int, prefix: String = "") -> String {
            let length = max(utf8SequenceLength(at: offset), 1)
            let character = text(offset, offset + length)
            let code = character.unicodeScalars.first.map { " (\(hexCode($0.value)))" } ?? ""
            return "'\(prefix)\(character)'\(code)"
        }

        private func hexCode(_ value: UInt32) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        }

        private func hexByte(_ byte: UInt8) -> String {
            let digits = String(byte, radix: 16, uppercase: true)
            return "0x" + (digits.count < 2 ? "0" : "") + digits
        }

        /// `text` as a JSON string literal (escaped, shortened to 40 scalars) for messages.
        private func quoted(_ text: String) -> String {
            guard text.unicodeScalars.count > 40 else { return JSONValue.string(text).serialized() }
            return JSONValue.string(String(text.unicodeScalars.prefix(40)) + "…").serialized()
        }
    }
}

// MARK: - Byte constants

extension JSONParser {
    /// ASCII code units used by the reader.
    private enum Byte {
        static let tab = UInt8(ascii: "\t")
        static let formFeed = UInt8(ascii: "\u{0C}")
        static let equals = UInt8(ascii: "=")
        static let hash = UInt8(ascii: "#")
        static let semicolon = UInt8(ascii: ";")
        static let greaterThan = UInt8(ascii: ">")
        static let newline = UInt8(ascii: "\n")
        static let carriageReturn = UInt8(ascii: "\r")
        static let space = UInt8(ascii: " ")
        static let quote = UInt8(ascii: "\"")
        static let dollar = UInt8(ascii: "$")
        static let apostrophe = UInt8(ascii: "'")
        static let asterisk = UInt8(ascii: "*")
        static let plus = UInt8(ascii: "+")
        static let comma = UInt8(ascii: ",")
        static let minus = UInt8(ascii: "-")
        static let dot = UInt8(ascii: ".")
        static let slash = UInt8(ascii: "/")
        static let zero = UInt8(ascii: "0")
        static let nine = UInt8(ascii: "9")
        static let colon = UInt8(ascii: ":")
        static let openBracket = UInt8(ascii: "[")
        static let backslash = UInt8(ascii: "\\")
        static let closeBracket = UInt8(ascii: "]")
        static let underscore = UInt8(ascii: "_")
        static let lowercaseA = UInt8(ascii: "a")
        static let lowercaseB = UInt8(ascii: "b")
        static let lowercaseE = UInt8(ascii: "e")
        static let lowercaseF = UInt8(ascii: "f")
        static let lowercaseN = UInt8(ascii: "n")
        static let lowercaseR = UInt8(ascii: "r")
        static let lowercaseT = UInt8(ascii: "t")
        static let lowercaseU = UInt8(ascii: "u")
        static let openBrace = UInt8(ascii: "{")
        static let closeBrace = UInt8(ascii: "}")
    }
}
