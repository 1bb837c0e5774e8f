import BookRuleHTTP
import Testing
@testable import BookRuleDocument

@Suite("Eight-bytes-at-a-time searches")
struct ByteScanTests {
    @Test("containsAny agrees with a byte-by-byte search at every length and offset")
    func containsAnyAgrees() {
        var random = SeededRandomNumberGenerator(seed: 42)
        let alphabet: [UInt8] = Array("/book/12.html".utf8) + [0x0A, 0x0D, 0x7B, 0x3C, 0x26, 0x80, 0xFF, 0x00]
        for _ in 0..<5000 {
            let bytes = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                // Mostly plain link bytes, so that most buffers hold none of the five.
                Int.random(in: 0..<6, using: &random) == 0 ? alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                    : alphabet[Int.random(in: 0..<13, using: &random)]
            }
            let expected = bytes.contains { [0x0A, 0x0D, 0x7B, 0x3C, 0x26].contains($0) }
            let found = bytes.withUnsafeBufferPointer { ByteScan.containsAny($0, 0x0A, 0x0D, 0x7B, 0x3C, 0x26) }
            #expect(found == expected, "\(bytes)")
        }
    }
}
