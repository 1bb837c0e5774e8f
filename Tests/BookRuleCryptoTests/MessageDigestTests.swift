import Testing
import BookRuleCrypto

@Suite("MessageDigest")
struct MessageDigestTests {
    @Test("MD5 of abc (RFC 1321) and Legado's md5Encode16")
    func md5() {
        #expect(MessageDigest.md5Hex("abc") == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MessageDigest.md5Hex16("abc") == "3cd24fb0d6963f7d")
        #expect(MessageDigest.md5Hex("") == "d41d8cd98f00b204e9800998ecf8427e")
        // UTF-8, as Java's getBytes() on Android: cross-checked with `printf '书源' | openssl md5`.
        #expect(MessageDigest.md5Hex("书源") == "6f9e66e43f2051170fbb63141c2cc8b3")
    }

    @Test("SHA family vectors for abc")
    func shaFamily() {
        #expect(MessageDigest.hexDigest(of: "abc", algorithm: .sha1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(MessageDigest.hexDigest(of: "abc", algorithm: .sha256)
            == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(MessageDigest.hexDigest(of: "abc", algorithm: .sha512).hasPrefix("ddaf35a193617aba"))
        for algorithm in MessageDigest.Algorithm.allCases {
            #expect(MessageDigest.hash([1, 2, 3], algorithm: algorithm).count == algorithm.byteCount)
        }
    }

    @Test("availability: every algorithm on this machine's libcrypto, none without a digest")
    func availability() {
        // Debian's default OpenSSL configuration has them all; a FIPS-only one would refuse MD5, and scripts
        // asking for it then get an error instead of a trap.
        #expect(MessageDigest.Algorithm.allCases.filter { !$0.isAvailable }.isEmpty)
        #expect(!DigestContext.isAvailable(digest: nil))
    }

    @Test("Java algorithm names")
    func javaNames() {
        #expect(MessageDigest.Algorithm(javaName: "MD5") == .md5)
        #expect(MessageDigest.Algorithm(javaName: "sha-256") == .sha256)
        #expect(MessageDigest.Algorithm(javaName: "SHA256") == .sha256)
        #expect(MessageDigest.Algorithm(javaName: "SHA-1") == .sha1)
        #expect(MessageDigest.Algorithm(javaName: "whirlpool") == nil)
    }

    @Test("incremental updates equal one-shot")
    func incremental() {
        var digest = MessageDigest(.md5)
        digest.update("a")
        let copy = digest
        digest.update([UInt8(ascii: "b"), UInt8(ascii: "c")])
        #expect(digest.hexDigest() == "900150983cd24fb0d6963f7d28e17f72")
        #expect(copy.hexDigest() == MessageDigest.md5Hex("a"))
    }
}
