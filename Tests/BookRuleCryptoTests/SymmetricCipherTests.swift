import Foundation
import Testing
import BookRuleCrypto

/// Expected values were produced with `openssl enc` on this machine (commands in NOTES.md).
@Suite("SymmetricCipher")
struct SymmetricCipherTests {
    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    private func base64(_ text: String) -> [UInt8] {
        Data(base64Encoded: text).map { [UInt8]($0) } ?? []
    }

    @Test("AES-128-CBC, NIST SP 800-38A F.2.1 block 1")
    func aesCBCKnownAnswer() throws {
        let cipher = try SymmetricCipher(transformation: "AES/CBC/NoPadding",
                                         key: hex("2b7e151628aed2a6abf7158809cf4f3c"),
                                         iv: hex("000102030405060708090a0b0c0d0e0f"))
        let plaintext = hex("6bc1bee22e409f96e93d7e117393172a")
        let ciphertext = try cipher.encrypt(plaintext)
        #expect(ciphertext == hex("7649abac8119b246cee98e9b12e9197d"))
        #expect(try cipher.decrypt(ciphertext) == plaintext)
    }

    @Test("DES-ECB, the classic 133457799BBCDFF1 vector (legacy provider)")
    func desECBKnownAnswer() throws {
        let cipher = try SymmetricCipher(transformation: "DES/ECB/NoPadding", key: hex("133457799BBCDFF1"))
        #expect(try cipher.encrypt(hex("0123456789ABCDEF")) == hex("85e813540f0ab405"))
        #expect(try cipher.decrypt(hex("85e813540f0ab405")) == hex("0123456789ABCDEF"))
    }

    @Test("AES/CBC/PKCS5Padding with text key and IV, as a rule writes it")
    func aesCBCPKCS5() throws {
        let cipher = try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "1234567890abcdef",
                                         iv: "abcdef1234567890")
        let expected = base64("a3kp7SaOCJEM+lRfXFbBcT9f4H2CuBvzKsq00j9jYG8=")
        #expect(try cipher.encrypt(Array("你好，世界 Hello".utf8)) == expected)
        #expect(try cipher.decrypt(expected) == Array("你好，世界 Hello".utf8))
    }

    @Test("DES/CBC, DESede/ECB and AES-256 (bare 'AES' = ECB/PKCS5) against openssl enc")
    func otherCiphers() throws {
        let des = try SymmetricCipher(transformation: "DES/CBC/PKCS5Padding", key: "12345678", iv: "87654321")
        #expect(try des.encrypt(Array("bookrule".utf8)) == base64("1YSufdDOWbbBuj7EGj478Q=="))
        let triple = try SymmetricCipher(transformation: "DESede/ECB/PKCS7Padding", key: "123456789012345678901234")
        #expect(try triple.encrypt(Array("triple des text".utf8)) == base64("W5yYrxHMtux5nqLELo2G8A=="))
        let aes256 = try SymmetricCipher(transformation: "aes", key: "12345678901234567890123456789012")
        #expect(aes256.transformation == "AES/ECB/PKCS5Padding")
        #expect(try aes256.encrypt(Array("aes256 ecb".utf8)) == base64("NqOnqWY44i80sIPyXkJfsg=="))
        #expect(try aes256.decrypt(base64("NqOnqWY44i80sIPyXkJfsg==")) == Array("aes256 ecb".utf8))
    }

    @Test("Java key rules: DES uses the first 8 bytes, DESede the first 24")
    func javaKeyRules() throws {
        let short = try SymmetricCipher(transformation: "DES/CBC/PKCS5Padding", key: "12345678", iv: "87654321")
        let long = try SymmetricCipher(transformation: "DES/CBC/PKCS5Padding", key: "12345678-and-more", iv: "87654321")
        #expect(try short.encrypt([1, 2, 3]) == long.encrypt([1, 2, 3]))
    }

    @Test("ZeroPadding (Hutool): pads to a block, strips trailing zeros")
    func zeroPadding() throws {
        let cipher = try SymmetricCipher(transformation: "AES/ECB/ZeroPadding", key: "1234567890abcdef")
        let ciphertext = try cipher.encrypt(Array("zero pad".utf8))
        #expect(ciphertext == base64("lWf5VD7MYsvAqTdgnnuV3w=="))
        #expect(try cipher.decrypt(ciphertext) == Array("zero pad".utf8))
    }

    @Test("empty input: PKCS5 gives one padding block, round trips")
    func emptyInput() throws {
        let cipher = try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "1234567890abcdef",
                                         iv: "abcdef1234567890")
        let ciphertext = try cipher.encrypt([])
        #expect(ciphertext.count == 16)
        #expect(try cipher.decrypt(ciphertext) == [])
        #expect(try cipher.decrypt([]) == [])
    }

    @Test("clear errors for bad setups")
    func errors() throws {
        #expect(throws: CipherError.badKeyLength(algorithm: "AES", length: 15, expected: "16, 24 or 32 bytes")) {
            try SymmetricCipher(transformation: "AES/ECB/PKCS5Padding", key: "123456789012345")
        }
        #expect(throws: CipherError.badKeyLength(algorithm: "DESede", length: 16, expected: "24 bytes")) {
            try SymmetricCipher(transformation: "DESede", key: "1234567890123456")
        }
        #expect(throws: CipherError.missingIV(transformation: "AES/CBC/PKCS5Padding")) {
            try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "1234567890abcdef")
        }
        #expect(throws: CipherError.badIVLength(length: 8, expected: 16)) {
            try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "1234567890abcdef", iv: "12345678")
        }
        for text in ["AES/GCM/NoPadding", "RSA", "AES/CBC", "AES/CBC/ISO10126Padding", ""] {
            #expect(throws: CipherError.unknownTransformation(text)) {
                try SymmetricCipher(transformation: text, key: "1234567890abcdef", iv: "abcdef1234567890")
            }
        }
        let noPadding = try SymmetricCipher(transformation: "AES/ECB/NoPadding", key: "1234567890abcdef")
        #expect(throws: CipherError.notBlockAligned(length: 5, blockSize: 16)) {
            try noPadding.encrypt([1, 2, 3, 4, 5])
        }
        let cbc = try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "1234567890abcdef",
                                      iv: "abcdef1234567890")
        #expect(throws: CipherError.notBlockAligned(length: 17, blockSize: 16)) {
            try cbc.decrypt([UInt8](repeating: 7, count: 17))
        }
        // The right ciphertext under the wrong key: the last block's padding no longer checks out.
        let wrongKey = try SymmetricCipher(transformation: "AES/CBC/PKCS5Padding", key: "fedcba0987654321",
                                           iv: "abcdef1234567890")
        #expect(throws: CipherError.badPadding) {
            try wrongKey.decrypt(base64("a3kp7SaOCJEM+lRfXFbBcT9f4H2CuBvzKsq00j9jYG8="))
        }
        #expect(CipherError.badPadding.description.contains("bad padding"))
        #expect(CipherError.unknownTransformation("X").description.contains("AES, DES or DESede"))
    }
}
