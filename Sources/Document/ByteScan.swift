/// Searches on UTF-8 bytes eight at a time, for the checks that run on every chapter of a TOC (a title, a
/// link): most of those bytes hold none of what is searched for, and a byte-by-byte loop showed in the profile.
/// The masks are exact: bit 7 of a byte of the result is set where that byte of the word matches, so the
/// first match is at `trailingZeroBitCount / 8` (the words are loaded little-endian).
package enum ByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The bytes of `word` that are zero.
    @inline(__always)
    static func zeroBytes(_ word: UInt64) -> UInt64 { ~(((word & lows) &+ lows) | word | lows) }

    /// The bytes of `word` that equal `byte`.
    @inline(__always)
    static func bytes(of word: UInt64, equalTo byte: UInt8) -> UInt64 { zeroBytes(word ^ (ones &* UInt64(byte))) }

    /// The bytes of `word` below `limit` (at most 0x80).
    @inline(__always)
    static func bytes(of word: UInt64, below limit: UInt8) -> UInt64 {
        ~(((word & lows) &+ ones &* UInt64(0x80 &- limit)) | word | lows)
    }

    /// The eight bytes at `offset`.
    @inline(__always)
    static func word(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
        UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self)
    }

    /// Whether any byte of `bytes` is one of the five given.
    package static func containsAny(_ bytes: UnsafeBufferPointer<UInt8>, _ a: UInt8, _ b: UInt8, _ c: UInt8,
                                    _ d: UInt8, _ e: UInt8) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let count = bytes.count
        if count < 8 {
            return bytes.contains { $0 == a || $0 == b || $0 == c || $0 == d || $0 == e }
        }
        @inline(__always) func matches(_ word: UInt64) -> UInt64 {
            Self.bytes(of: word, equalTo: a) | Self.bytes(of: word, equalTo: b) | Self.bytes(of: word, equalTo: c)
                | Self.bytes(of: word, equalTo: d) | Self.bytes(of: word, equalTo: e)
        }
        var index = 0
        while index + 8 <= count {
            if matches(word(base, index)) != 0 { return true }
            index += 8
        }
        // The last eight bytes, overlapping the word before: no byte-by-byte tail.
        return index < count && matches(word(base, count - 8)) != 0
    }
}
