import CJavaScriptCore

/// UTF-16 round trip between Swift `String` and `JSStringRef`.
/// Never use the UTF8CString APIs for data: they stop at the first NUL.
enum JSStrings {
    /// Returns a +1 JSStringRef; the caller must `JSStringRelease` it.
    static func create(_ string: String) -> JSStringRef {
        var string = string
        return string.withUTF8 { utf8 in
            // At most one UTF-16 unit per UTF-8 byte; on the stack for the strings of a hot field (a chapter
            // title per call), and JSStringCreateWithCharacters copies (a nil base for "" is fine).
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: max(utf8.count, 1)) { units in
                JSStringCreateWithCharacters(units.baseAddress, utf16(of: utf8, into: units))
            }
        }
    }

    /// Appends the UTF-16 of `string` to `units` (the inputs of many evaluations made into one string).
    static func appendUTF16(of string: String, to units: inout [UInt16]) {
        var string = string
        string.withUTF8 { utf8 in
            let start = units.count
            units.append(contentsOf: repeatElement(0, count: utf8.count))
            let written = units.withUnsafeMutableBufferPointer { all in
                utf16(of: utf8, into: UnsafeMutableBufferPointer(rebasing: all[start...]))
            }
            units.removeLast(utf8.count - written)
        }
    }

    /// Writes the UTF-16 of `utf8` (valid UTF-8, as a Swift string's always is) into `units`, which holds
    /// `utf8.count` units at least, and returns how many it wrote. Hand-written: the generic `utf16` view
    /// and `Array(string.utf16)` took most of the time of making a string for a script.
    private static func utf16(of utf8: UnsafeBufferPointer<UInt8>, into units: UnsafeMutableBufferPointer<UInt16>) -> Int {
        var read = 0
        var written = 0
        let count = utf8.count
        while read < count {
            let lead = UInt32(utf8[read])
            if lead < 0x80 {
                units[written] = UInt16(lead)
                read += 1
                written += 1
                continue
            }
            var scalar: UInt32
            if lead < 0xE0 {
                scalar = (lead & 0x1F) << 6 | UInt32(utf8[read + 1] & 0x3F)
                read += 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) << 12 | UInt32(utf8[read + 1] & 0x3F) << 6 | UInt32(utf8[read + 2] & 0x3F)
                read += 3
            } else {
                scalar = (lead & 0x07) << 18 | UInt32(utf8[read + 1] & 0x3F) << 12
                    | UInt32(utf8[read + 2] & 0x3F) << 6 | UInt32(utf8[read + 3] & 0x3F)
                read += 4
            }
            if scalar >= 0x1_0000 {
                scalar -= 0x1_0000
                units[written] = UInt16(0xD800 | (scalar >> 10))
                units[written + 1] = UInt16(0xDC00 | (scalar & 0x3FF))
                written += 2
            } else {
                units[written] = UInt16(scalar)
                written += 1
            }
        }
        return written
    }

    /// Runs `body` with a temporary JSStringRef and releases it afterwards.
    static func with<R>(_ string: String, _ body: (JSStringRef) throws -> R) rethrows -> R {
        let js = create(string)
        defer { JSStringRelease(js) }
        return try body(js)
    }

    /// Copies a JSStringRef into a Swift String (does not release `js`).
    /// Unpaired surrogates become U+FFFD (Swift Strings cannot hold them).
    static func string(_ js: JSStringRef) -> String {
        let count = JSStringGetLength(js)
        guard count > 0, let ptr = JSStringGetCharactersPtr(js) else { return "" }
        return utf8String(of: UnsafeBufferPointer(start: ptr, count: count))
    }

    /// `String(decoding: units, as: UTF16.self)`, written out: the generic decoding took most of the time of
    /// reading a script's string result (a chapter title per call). An unpaired surrogate becomes U+FFFD.
    static func utf8String(of units: UnsafeBufferPointer<UInt16>) -> String {
        // Three UTF-8 bytes at most per unit (a pair of surrogates, two units, makes four bytes).
        String(unsafeUninitializedCapacity: units.count * 3) { bytes in
            var read = 0
            var written = 0
            let count = units.count
            func put(_ byte: UInt32) {
                bytes[written] = UInt8(truncatingIfNeeded: byte)
                written += 1
            }
            while read < count {
                var scalar = UInt32(units[read])
                read += 1
                if scalar < 0x80 {
                    put(scalar)
                    continue
                }
                if scalar < 0x800 {
                    put(0xC0 | scalar >> 6)
                    put(0x80 | scalar & 0x3F)
                    continue
                }
                if scalar & 0xF800 == 0xD800 {
                    if scalar < 0xDC00, read < count, units[read] & 0xFC00 == 0xDC00 {
                        scalar = 0x1_0000 + ((scalar - 0xD800) << 10 | (UInt32(units[read]) - 0xDC00))
                        read += 1
                        put(0xF0 | scalar >> 18)
                        put(0x80 | (scalar >> 12) & 0x3F)
                        put(0x80 | (scalar >> 6) & 0x3F)
                        put(0x80 | scalar & 0x3F)
                        continue
                    }
                    scalar = 0xFFFD
                }
                put(0xE0 | scalar >> 12)
                put(0x80 | (scalar >> 6) & 0x3F)
                put(0x80 | scalar & 0x3F)
            }
            return written
        }
    }

    /// ToString() of any value; returns nil and fills `exception` if ToString throws (e.g. Symbol).
    static func string(of value: JSValueRef, in ctx: JSContextRef,
                       exception: UnsafeMutablePointer<JSValueRef?>?) -> String? {
        guard let js = JSValueToStringCopy(ctx, value, exception) else { return nil }
        defer { JSStringRelease(js) }
        return string(js)
    }
}
