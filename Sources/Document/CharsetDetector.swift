/// Decides how to decode a page: a saved page's charset (its `pages.json` entry's `contentType`), else source
/// option, else Content-Type charset, else an XML declaration's encoding (RSS and Atom feeds, XHTML), else
/// `<meta>` charset, else valid UTF-8, else the CJK charset uchardet recognises (Shift_JIS, EUC-JP, EUC-KR, Big5,
/// GBK), else GB18030.
///
/// A declared non-UTF-8 charset (header or meta) is overruled when the bytes are valid UTF-8 and contain
/// multi-byte sequences: GBK text is practically never valid UTF-8, while pages re-saved as UTF-8 that still say
/// gbk are common. A source's explicit option is never overruled.
public enum CharsetDetector {
    /// How many leading bytes are scanned for a `<meta>` charset (WHATWG uses 1024; Chinese sites often put
    /// long scripts first, so a little more).
    static let metaScanLimit = 4096

    /// Decides the charset for `bytes`.
    /// - Parameters:
    ///   - bytes: the response's body, as received.
    ///   - sourceOption: the source's `charset` option for this URL, if any.
    ///   - contentType: the response's Content-Type header value, if any.
    ///   - savedCharset: the charset a saved page's index says its file is in (`HTTPResponse.savedCharset`),
    ///     which wins over the source's option: a browser re-saves a GBK site's pages as UTF-8, while the
    ///     source's option stays right for the live site.
    public static func decide(bytes: [UInt8], sourceOption: String?, contentType: String?,
                              savedCharset: String? = nil) throws(CharsetError) -> CharsetDecision {
        if let saved = savedCharset?.trimmingASCIIWhitespace(), !saved.isEmpty {
            return CharsetDecision(charset: try canonicalName(saved), reason: .savedPage, declared: saved,
                                   bytesAreValidUTF8: false)
        }
        if let option = sourceOption?.trimmingASCIIWhitespace(), !option.isEmpty {
            let charset = try canonicalName(option)
            // Kept, as Legado does, but said: a charset option often exists only to encode a search key, and
            // decoding a UTF-8 answer with it gives mojibake.
            let note = charset != "UTF-8" && UTF8Validation.check(bytes) == .validWithMultibyte
                ? "the source's charset option says \(option), but the answer is valid UTF-8; decoding it as \(option) garbles it (if the option is there to encode the search key, the site may answer in UTF-8)"
                : nil
            return CharsetDecision(charset: charset, reason: .sourceOption, declared: option, note: note,
                                   bytesAreValidUTF8: false)
        }
        let utf8 = UTF8Validation.check(bytes)
        if let label = contentType.flatMap(charsetParameter(inContentType:)) {
            return try declared(label, reason: .contentType, utf8: utf8, bytes: bytes)
        }
        if let label = xmlDeclarationEncoding(in: bytes) {
            return try declared(label, reason: .xmlDeclaration, utf8: utf8, bytes: bytes)
        }
        if let label = metaCharset(in: bytes) {
            return try declared(label, reason: .meta, utf8: utf8, bytes: bytes)
        }
        if utf8 != .invalid { return CharsetDecision(charset: "UTF-8", reason: .validUTF8, bytesAreValidUTF8: true) }
        return detected(in: bytes) ?? CharsetDecision(charset: "GB18030", reason: .fallback, bytesAreValidUTF8: false)
    }

    /// How many leading bytes uchardet reads for an undeclared page: plenty of text for it to judge, without
    /// reading all of a 5,000-chapter TOC.
    static let detectionScanLimit = 64 * 1024

    /// The guesses taken. uchardet 0.0.7 reports no confidence and sometimes answers a single-byte charset
    /// (`WINDOWS-1252`, `ISO-8859-7`) for CJK text; for the Chinese sites this tool targets GB18030 is the
    /// better answer then.
    static let detectableCharsets: Set<String> = ["GB18030", "BIG5", "SHIFT_JIS", "EUC-JP", "EUC-KR"]

    /// The CJK charset uchardet recognises in bytes that declare none and are not UTF-8; nil when it is unsure.
    static func detected(in bytes: [UInt8]) -> CharsetDecision? {
        let guess = bytes.withUnsafeBytes { buffer in
            CharsetGuess.detect(UnsafeRawBufferPointer(rebasing: buffer.prefix(detectionScanLimit)))
        }
        guard let guess, detectableCharsets.contains(guess), let name = try? canonicalName(guess) else { return nil }
        return CharsetDecision(charset: name, reason: .detected, bytesAreValidUTF8: false)
    }

    private static func declared(_ label: String, reason: CharsetDecision.Reason, utf8: UTF8Validation,
                                 bytes: [UInt8]) throws(CharsetError) -> CharsetDecision {
        let name: String
        do {
            name = try canonicalName(label)
        } catch {
            // An unknown label on a live page is the site's mistake, not the user's: fall back to detection.
            let guess = utf8 == .invalid ? detected(in: bytes) : nil
            let charset = guess?.charset ?? (utf8 == .invalid ? "GB18030" : "UTF-8")
            return CharsetDecision(charset: charset, reason: guess?.reason ?? (utf8 == .invalid ? .fallback : .validUTF8),
                                   declared: label, note: "declared charset \"\(label)\" is unknown",
                                   bytesAreValidUTF8: utf8 != .invalid)
        }
        if name != "UTF-8" && utf8 == .validWithMultibyte {
            return CharsetDecision(charset: "UTF-8", reason: .validUTF8, declared: label,
                                   note: "\(reason.rawValue) says \(label) but the bytes are valid UTF-8",
                                   bytesAreValidUTF8: true)
        }
        return CharsetDecision(charset: name, reason: reason, declared: label, bytesAreValidUTF8: utf8 != .invalid)
    }

    /// Maps a charset label to the iconv name bookrule decodes with, following WHATWG's label table where it
    /// matters for novel sites (gb2312 and gbk are decoded as GB18030, their superset; big5 as Big5-HKSCS).
    public static func canonicalName(_ label: String) throws(CharsetError) -> String {
        let key = label.trimmingASCIIWhitespace().lowercased()
        switch key {
        case "utf-8", "utf8", "unicode-1-1-utf-8", "x-unicode20utf8": return "UTF-8"
        case "gbk", "gb2312", "gb_2312", "gb_2312-80", "x-gbk", "gb18030", "cp936", "windows-936", "chinese",
             "csgb2312", "iso-ir-58", "euc-cn":
            return "GB18030"
        case "big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5": return "BIG5-HKSCS"
        case "shift_jis", "shift-jis", "sjis", "x-sjis", "ms_kanji", "windows-31j", "csshiftjis": return "CP932"
        case "euc-jp", "x-euc-jp": return "EUC-JP"
        case "euc-kr", "ks_c_5601-1987", "windows-949": return "CP949"
        case "iso-8859-1", "latin1", "us-ascii", "ascii", "windows-1252", "cp1252": return "WINDOWS-1252"
        default:
            let upper = key.uppercased()
            guard !upper.isEmpty, TextTranscoder.isSupported(upper) else { throw .unsupported(label) }
            return upper
        }
    }

    /// The `charset=` parameter of a Content-Type value, if present.
    public static func charsetParameter(inContentType value: String) -> String? {
        for parameter in value.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingASCIIWhitespace().lowercased() == "charset" else { continue }
            let label = pair[1].trimmingASCIIWhitespace().trimmingCharacters(in: "\"'")
            return label.isEmpty ? nil : label
        }
        return nil
    }

    /// The `encoding` of the XML declaration the bytes begin with (after a UTF-8 byte order mark and white space,
    /// which the XML specification does not allow but real feeds have), as in
    /// `<?xml version="1.0" encoding="gb2312"?>`; nil when there is none or it names no encoding.
    public static func xmlDeclarationEncoding(in bytes: [UInt8]) -> String? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < min(bytes.count, 64), SpaceTrimming.isASCIISpace(bytes[start]) { start += 1 }
        let head = Array(bytes[start..<min(bytes.count, start + 256)])
        guard head.starts(with: Array("<?xml".utf8)), head.count > 5, SpaceTrimming.isASCIISpace(head[5]),
              let close = head.firstRange(of: Array("?>".utf8), from: 5) else { return nil }
        let declaration = Array(head[5..<close.lowerBound])
        guard let found = declaration.firstRange(of: Array("encoding".utf8), from: 0) else { return nil }
        var position = found.upperBound
        func skipSpace() { while position < declaration.count, SpaceTrimming.isASCIISpace(declaration[position]) { position += 1 } }
        skipSpace()
        guard position < declaration.count, declaration[position] == UInt8(ascii: "=") else { return nil }
        position += 1
        skipSpace()
        guard position < declaration.count, declaration[position] == 0x22 || declaration[position] == 0x27 else { return nil }
        let quote = declaration[position]
        position += 1
        guard let end = declaration[position...].firstIndex(of: quote), end > position,
              declaration[position..<end].allSatisfy({ isLabelByte($0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0) }) else { return nil }
        return String(decoding: declaration[position..<end], as: UTF8.self)
    }

    /// The charset named by the first `<meta charset=…>` or `<meta … content="…; charset=…">` in the page's
    /// first bytes.
    public static func metaCharset(in bytes: [UInt8]) -> String? {
        let prefix = bytes.prefix(metaScanLimit).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let meta = Array("<meta".utf8), charset = Array("charset".utf8)
        var index = 0
        while let start = prefix.firstRange(of: meta, from: index) {
            let tagEnd = prefix[start.upperBound...].firstIndex(of: UInt8(ascii: ">")) ?? prefix.endIndex
            var cursor = start.upperBound
            while let found = prefix.firstRange(of: charset, from: cursor), found.upperBound <= tagEnd {
                var position = found.upperBound
                while position < tagEnd, prefix[position] == 0x20 || prefix[position] == 0x09 { position += 1 }
                if position < tagEnd, prefix[position] == UInt8(ascii: "=") {
                    position += 1
                    while position < tagEnd, [0x20, 0x09, 0x22, 0x27].contains(prefix[position]) { position += 1 }
                    var end = position
                    while end < tagEnd, isLabelByte(prefix[end]) { end += 1 }
                    if end > position {
                        // Take the label's original bytes (ASCII only, so the lowercase copy is equivalent).
                        return String(decoding: prefix[position..<end], as: UTF8.self)
                    }
                }
                cursor = found.upperBound
            }
            index = tagEnd
        }
        return nil
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }
}

extension Array where Element == UInt8 {
    /// The first occurrence of `needle` at or after `start`.
    func firstRange(of needle: [UInt8], from start: Int) -> Range<Int>? {
        guard !needle.isEmpty, count >= needle.count, start <= count - needle.count else { return nil }
        let first = needle[0]
        var index = start
        while index <= count - needle.count {
            if self[index] == first {
                var matched = true
                for offset in 1..<needle.count where self[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index..<(index + needle.count) }
            }
            index += 1
        }
        return nil
    }
}
