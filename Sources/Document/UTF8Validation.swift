/// Whether a byte buffer is valid UTF-8, and whether it uses anything beyond ASCII.
enum UTF8Validation: Equatable {
    case invalid
    case ascii
    case validWithMultibyte

    /// Checks `bytes` in one pass (RFC 3629: no overlongs, no surrogates, nothing above U+10FFFF).
    static func check(_ bytes: [UInt8]) -> UTF8Validation {
        bytes.withUnsafeBufferPointer { buffer in
            var index = 0
            var sawMultibyte = false
            let count = buffer.count
            guard let base = buffer.baseAddress else { return .ascii }
            while index < count {
                // Markup is mostly ASCII: skip it eight bytes at a time.
                if index + 8 <= count,
                   UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    index += 8
                    continue
                }
                let lead = buffer[index]
                if lead < 0x80 { index += 1; continue }
                sawMultibyte = true
                // Most of a Chinese page's text: a three-byte sequence whose lead (E1–EC, EE, EF) allows any
                // continuation bytes, checked without the table below.
                if lead &- 0xE1 < 0x0F, lead != 0xED, index + 3 <= count {
                    guard buffer[index + 1] & 0xC0 == 0x80, buffer[index + 2] & 0xC0 == 0x80 else { return .invalid }
                    index += 3
                    continue
                }
                let length: Int
                var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
                switch lead {
                case 0xC2...0xDF: length = 2
                case 0xE0: length = 3; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: length = 3
                case 0xED: length = 3; upper = 0x9F
                case 0xF0: length = 4; lower = 0x90
                case 0xF1...0xF3: length = 4
                case 0xF4: length = 4; upper = 0x8F
                default: return .invalid
                }
                guard index + length <= count else { return .invalid }
                let second = buffer[index + 1]
                guard second >= lower && second <= upper else { return .invalid }
                var offset = 2
                while offset < length {
                    guard buffer[index + offset] & 0xC0 == 0x80 else { return .invalid }
                    offset += 1
                }
                index += length
            }
            return sawMultibyte ? .validWithMultibyte : .ascii
        }
    }
}
