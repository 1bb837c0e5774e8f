#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Converts bytes between a named charset and UTF-8 with iconv.
///
/// bookrule transcodes pages itself instead of letting libxml2 do it, because libxml2 stops parsing at the first
/// byte its converter rejects (and prints to stderr), while real GBK pages often carry a stray invalid byte.
/// Here every undecodable byte becomes U+FFFD and decoding goes on.
public enum TextTranscoder {
    /// Decodes `bytes` from `charset` (an iconv name such as `GB18030`) into UTF-8 bytes.
    /// Invalid or truncated sequences become U+FFFD (one per skipped byte).
    public static func utf8Bytes(from bytes: [UInt8], charset: String) throws(CharsetError) -> [UInt8] {
        try convert(bytes, from: charset, to: "UTF-8", replacement: [0xEF, 0xBF, 0xBD])
    }

    /// Encodes a Swift string into `charset` (for percent-encoding a search key the way a GBK site expects).
    /// Characters the charset cannot represent become `?`, as browsers do for form submissions.
    public static func bytes(of text: String, charset: String) throws(CharsetError) -> [UInt8] {
        try convert(Array(text.utf8), from: "UTF-8", to: charset, replacement: [UInt8(ascii: "?")])
    }

    /// Whether iconv on this machine knows `charset`.
    public static func isSupported(_ charset: String) -> Bool {
        let descriptor = iconv_open("UTF-8", charset)
        if Int(bitPattern: descriptor) == -1 { return false }
        iconv_close(descriptor)
        return true
    }

    private static func convert(
        _ input: [UInt8], from source: String, to target: String, replacement: [UInt8]
    ) throws(CharsetError) -> [UInt8] {
        let descriptor = iconv_open(target, source)
        if Int(bitPattern: descriptor) == -1 { throw CharsetError.unsupported(source == "UTF-8" ? target : source) }
        defer { iconv_close(descriptor) }
        if input.isEmpty { return [] }

        var output = [UInt8]()
        output.reserveCapacity(input.count + input.count / 2 + 16)
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        input.withUnsafeBufferPointer { inputBuffer in
            guard let inputBase = inputBuffer.baseAddress else { return }
            var inPointer = UnsafeMutablePointer(mutating: UnsafeRawPointer(inputBase).assumingMemoryBound(to: CChar.self))
            var inLeft = inputBuffer.count
            chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                guard let chunkBase = chunkBuffer.baseAddress else { return }
                let chunkChars = UnsafeMutableRawPointer(chunkBase).assumingMemoryBound(to: CChar.self)
                while true {
                    var outPointer: UnsafeMutablePointer<CChar>? = chunkChars
                    var outLeft = chunkBuffer.count
                    var inOptional: UnsafeMutablePointer<CChar>? = inPointer
                    let result = iconv(descriptor, &inOptional, &inLeft, &outPointer, &outLeft)
                    let failure = result == -1 ? errno : 0
                    if let advanced = inOptional { inPointer = advanced }
                    output.append(contentsOf: UnsafeBufferPointer(start: chunkBase, count: chunkBuffer.count - outLeft))
                    if result != -1 {
                        // Flush any shift state (stateful encodings) and stop.
                        var flushOut: UnsafeMutablePointer<CChar>? = chunkChars
                        var flushLeft = chunkBuffer.count
                        _ = iconv(descriptor, nil, nil, &flushOut, &flushLeft)
                        output.append(contentsOf: UnsafeBufferPointer(start: chunkBase, count: chunkBuffer.count - flushLeft))
                        return
                    }
                    switch failure {
                    case E2BIG:
                        continue
                    case EILSEQ, EINVAL:
                        // Invalid or unrepresentable (EILSEQ), or truncated at the end (EINVAL): replace and go
                        // on. From UTF-8 the whole character is skipped, so one character gives one `?`.
                        output.append(contentsOf: replacement)
                        var width = 1
                        if source == "UTF-8" {
                            let lead = UInt8(bitPattern: inPointer.pointee)
                            width = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
                        }
                        width = min(width, inLeft)
                        inPointer += width
                        inLeft -= width
                        if inLeft == 0 { return }
                    default:
                        output.append(contentsOf: replacement)
                        return
                    }
                }
            }
        }
        return output
    }
}
