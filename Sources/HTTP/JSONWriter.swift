/// A small pretty-printing JSON emitter that keeps member order (JSONSerialization sorts or scrambles it, and
/// escapes `/`), so fixtures diff cleanly in review.
struct JSONWriter {
    var bytes: [UInt8] = []
    private var depth = 0
    private var needsComma = false
    private var afterKey = false

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if depth > 0 { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(open: "{", close: "}", body)
    }

    mutating func array<S: Sequence>(_ items: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        container(open: "[", close: "]") { out in
            for item in items { body(&out, item) }
        }
    }

    private mutating func container(open: Unicode.Scalar, close: Unicode.Scalar, _ body: (inout JSONWriter) -> Void) {
        beginValue()
        bytes.append(UInt8(ascii: open))
        depth += 1
        needsComma = false
        let start = bytes.count
        body(&self)
        depth -= 1
        if bytes.count != start { newline() }
        bytes.append(UInt8(ascii: close))
        needsComma = true
    }

    mutating func key(_ name: String) {
        beginValue()
        appendString(name)
        bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        afterKey = true
    }

    mutating func member(_ name: String, string value: String) {
        key(name)
        beginValue()
        appendString(value)
        needsComma = true
    }

    mutating func member(_ name: String, int value: Int) {
        key(name)
        beginValue()
        bytes.append(contentsOf: Array(String(value).utf8))
        needsComma = true
    }

    mutating func member(_ name: String, bool value: Bool) {
        key(name)
        beginValue()
        bytes.append(contentsOf: Array((value ? "true" : "false").utf8))
        needsComma = true
    }

    /// Numbers print without a fraction when whole (as HAR tools do); non-finite values, which JSON cannot
    /// hold, are written as -1 ("unknown" in HAR).
    mutating func member(_ name: String, number value: Double) {
        key(name)
        beginValue()
        let text: String
        if !value.isFinite {
            text = "-1"
        } else if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            text = String(value)
        }
        bytes.append(contentsOf: Array(text.utf8))
        needsComma = true
    }

    mutating func nameValues(_ pairs: [(String, String)]) {
        array(pairs) { out, pair in
            out.object { out in
                out.member("name", string: pair.0)
                out.member("value", string: pair.1)
            }
        }
    }

    /// Control characters are escaped, and so is U+FEFF: Foundation's JSONSerialization on Linux silently drops
    /// a raw U+FEFF at the start of a string or right after an escape, which would break byte-exact bodies.
    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = Array(string.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            if byte == 0xEF, index + 1 < utf8.count, utf8[index] == 0xBB, utf8[index + 1] == 0xBF {
                bytes.append(contentsOf: Array("\\ufeff".utf8))
                index += 2
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, UInt8(ascii: "\"")])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
