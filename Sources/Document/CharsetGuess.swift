import CUchardet

/// Guesses the charset of bytes that declare none, with Mozilla's universal detector (libuchardet).
///
/// For pages with no Content-Type charset and no `<meta>`: the answer is a name bookrule's decoder knows
/// (`SHIFT_JIS`, `EUC-JP`, `EUC-KR`, `BIG5`, `GB18030`, `UTF-8`, `WINDOWS-1252`, …) or nil when there is
/// nothing to decide (pure ASCII decodes the same under any of them) or the detector is unsure.
///
/// uchardet 0.0.7 reports no confidence, and on a few bytes of CJK text it confidently answers a single-byte
/// charset (`WINDOWS-1252`, `ISO-8859-7`): measured on char-aligned windows of Japanese, Korean and Chinese
/// prose, Shift_JIS and EUC-KR are right every time from 16 bytes, Big5 and GBK only from 48. So below
/// `minimumNonASCIIBytes` non-ASCII bytes the answer is nil (unless the bytes are multi-byte UTF-8, which
/// is unambiguous). Each call uses its own detector, freed before it returns, so this is safe from any
/// thread.
package enum CharsetGuess {
    /// How many non-ASCII bytes a guess needs before it is trusted (see the type's notes for the measurements).
    package static let defaultMinimumNonASCIIBytes = 48

    /// The charset of `bytes`, or nil when they are ASCII, too short to judge or not recognised.
    /// - Parameter minimumNonASCIIBytes: how many bytes ≥ 0x80 the input must hold before a legacy (non
    ///   UTF-8) guess is returned.
    package static func detect(_ bytes: [UInt8], minimumNonASCIIBytes: Int = defaultMinimumNonASCIIBytes) -> String? {
        bytes.withUnsafeBytes { detect($0, minimumNonASCIIBytes: minimumNonASCIIBytes) }
    }

    /// The charset of the bytes in `buffer`, or nil when they are ASCII, too short to judge or not recognised.
    /// - Parameter minimumNonASCIIBytes: how many bytes ≥ 0x80 the input must hold before a legacy (non
    ///   UTF-8) guess is returned.
    package static func detect(_ buffer: UnsafeRawBufferPointer, minimumNonASCIIBytes: Int = defaultMinimumNonASCIIBytes) -> String? {
        let nonASCII = buffer.reduce(0) { $0 + ($1 >= 0x80 ? 1 : 0) }
        guard nonASCII > 0, let raw = rawGuess(buffer), let name = normalised(raw) else { return nil }
        if name == "UTF-8" { return name }
        return nonASCII >= minimumNonASCIIBytes ? name : nil
    }

    /// What uchardet itself says for `buffer`, unnormalised: nil for its "" (no idea), otherwise its name,
    /// which may be `ASCII`.
    package static func rawGuess(_ buffer: UnsafeRawBufferPointer) -> String? {
        guard let detector = uchardet_new() else { return nil }
        defer { uchardet_delete(detector) }
        if let base = buffer.baseAddress, !buffer.isEmpty {
            // A non-zero result means uchardet ran out of memory; its answer so far is still read below.
            _ = uchardet_handle_data(detector, base.assumingMemoryBound(to: CChar.self), buffer.count)
        }
        uchardet_data_end(detector)
        guard let charset = uchardet_get_charset(detector) else { return nil }
        let name = String(cString: charset)
        return name.isEmpty ? nil : name
    }

    /// Maps uchardet's names onto the labels bookrule's `CharsetDetector.canonicalName` accepts: upper case,
    /// `UHC` (what uchardet 0.0.7 says for all Korean text, Microsoft's superset of EUC-KR) as `EUC-KR`, and
    /// `ASCII` as nothing to decide.
    static func normalised(_ name: String) -> String? {
        let upper = name.uppercased()
        switch upper {
        case "ASCII", "US-ASCII": return nil
        case "UHC", "CP949", "WINDOWS-949": return "EUC-KR"
        case "SJIS", "SHIFT-JIS", "CP932": return "SHIFT_JIS"
        case "GB2312", "GBK", "EUC-CN": return "GB18030"
        case "BIG5-HKSCS": return "BIG5"
        default: return upper
        }
    }
}
