import CCrypto

/// AES, DES and triple DES in ECB or CBC mode, for Legado's
/// `java.createSymmetricCrypto("AES/CBC/PKCS5Padding", key, iv)` and its `encrypt`/`decrypt` calls.
///
/// Built from a Java transformation string and checked up front, so a rule with a 15-byte AES key or a
/// missing CBC IV fails with a sentence rather than garbage. Key rules follow Java's (and so Legado's):
/// AES takes exactly 16, 24 or 32 bytes (AES-128/192/256); DES takes 8 or more and uses the first 8
/// (`DESKeySpec`); DESede takes 24 or more and uses the first 24 (`DESedeKeySpec`). A CBC IV must be one
/// block (16 bytes for AES, 8 for DES); an IV given with ECB is ignored. `PKCS5Padding` and `PKCS7Padding`
/// are the same thing for these 8- and 16-byte blocks. `ZeroPadding` is Hutool's: encryption pads with zero
/// bytes to a whole block (nothing when already whole), decryption strips trailing zero bytes.
///
/// Immutable and `Sendable`; every call builds and frees its own `EVP_CIPHER_CTX`, so one value can be used
/// from several tasks at once.
package struct SymmetricCipher: Sendable {
    /// The block cipher.
    package enum Algorithm: String, Sendable {
        /// AES (Rijndael with a 16-byte block); the key length picks AES-128, -192 or -256.
        case aes = "AES"
        /// Single DES (8-byte key, 8-byte block). Broken, but some sites still use it.
        case des = "DES"
        /// Triple DES, EDE with three keys (24-byte key, 8-byte block).
        case tripleDES = "DESede"

        /// The block length in bytes.
        package var blockSize: Int { self == .aes ? 16 : 8 }
    }

    /// The block cipher mode.
    package enum Mode: String, Sendable {
        /// Each block on its own, no IV. Java's default when the transformation names only the algorithm.
        case ecb = "ECB"
        /// Cipher block chaining with a one-block IV.
        case cbc = "CBC"
    }

    /// How the last block is filled.
    package enum Padding: String, Sendable {
        /// PKCS#5/PKCS#7: n bytes of value n, always at least one. Java's default.
        case pkcs7 = "PKCS5Padding"
        /// None: the data must already be whole blocks.
        case none = "NoPadding"
        /// Zero bytes up to a whole block (Hutool's `ZeroPadding`); trailing zeros are stripped on decrypt.
        case zero = "ZeroPadding"
    }

    /// The block cipher.
    package let algorithm: Algorithm
    /// The mode.
    package let mode: Mode
    /// The padding.
    package let padding: Padding
    private let key: [UInt8]
    private let iv: [UInt8]

    /// A cipher for a Java transformation string such as `"AES/CBC/PKCS5Padding"`, `"DESede/ECB/NoPadding"`
    /// or just `"AES"` (which Java reads as `AES/ECB/PKCS5Padding`). Case is ignored; `TripleDES` and `3DES`
    /// are accepted for `DESede`.
    /// - Throws: `CipherError` for an unknown transformation or a key or IV of the wrong length.
    package init(transformation: String, key: [UInt8], iv: [UInt8]? = nil) throws(CipherError) {
        let parts = transformation.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.filter { $0 != " " }.uppercased() }
        guard parts.count == 1 || parts.count == 3, let algorithm = Self.algorithm(named: parts[0]) else {
            throw .unknownTransformation(transformation)
        }
        var mode = Mode.ecb
        var padding = Padding.pkcs7
        if parts.count == 3 {
            guard let namedMode = Mode(rawValue: parts[1]), let namedPadding = Self.padding(named: parts[2]) else {
                throw .unknownTransformation(transformation)
            }
            mode = namedMode
            padding = namedPadding
        }
        try self.init(algorithm: algorithm, mode: mode, padding: padding, key: key, iv: iv)
    }

    /// A cipher for a transformation string with a key and IV given as text, as rules usually write them;
    /// the UTF-8 bytes of each are used (Java's `String.getBytes()` on Android).
    /// - Throws: `CipherError` as `init(transformation:key:iv:)`.
    package init(transformation: String, key: String, iv: String? = nil) throws(CipherError) {
        try self.init(transformation: transformation, key: Array(key.utf8), iv: iv.map { Array($0.utf8) })
    }

    /// A cipher from its parts.
    /// - Throws: `CipherError.badKeyLength`, `.missingIV` or `.badIVLength` when the key or IV does not fit.
    package init(algorithm: Algorithm, mode: Mode, padding: Padding, key: [UInt8], iv: [UInt8]? = nil) throws(CipherError) {
        switch algorithm {
        case .aes:
            guard [16, 24, 32].contains(key.count) else {
                throw .badKeyLength(algorithm: "AES", length: key.count, expected: "16, 24 or 32 bytes")
            }
            self.key = key
        case .des:
            guard key.count >= 8 else { throw .badKeyLength(algorithm: "DES", length: key.count, expected: "8 bytes") }
            self.key = Array(key.prefix(8))
        case .tripleDES:
            guard key.count >= 24 else {
                throw .badKeyLength(algorithm: "DESede", length: key.count, expected: "24 bytes")
            }
            self.key = Array(key.prefix(24))
        }
        switch mode {
        case .ecb:
            self.iv = []
        case .cbc:
            guard let iv else { throw .missingIV(transformation: "\(algorithm.rawValue)/CBC/\(padding.rawValue)") }
            guard iv.count == algorithm.blockSize else {
                throw .badIVLength(length: iv.count, expected: algorithm.blockSize)
            }
            self.iv = iv
        }
        self.algorithm = algorithm
        self.mode = mode
        self.padding = padding
    }

    /// The transformation in Java's spelling, e.g. `AES/CBC/PKCS5Padding`.
    package var transformation: String { "\(algorithm.rawValue)/\(mode.rawValue)/\(padding.rawValue)" }

    /// `plaintext` encrypted.
    /// - Throws: `CipherError.notBlockAligned` with `NoPadding` and a partial last block, or an OpenSSL error.
    package func encrypt(_ plaintext: [UInt8]) throws(CipherError) -> [UInt8] {
        let blockSize = algorithm.blockSize
        var input = plaintext
        switch padding {
        case .pkcs7:
            break
        case .none:
            guard input.count % blockSize == 0 else { throw .notBlockAligned(length: input.count, blockSize: blockSize) }
        case .zero:
            let remainder = input.count % blockSize
            if remainder != 0 { input += [UInt8](repeating: 0, count: blockSize - remainder) }
        }
        return try run(input, encrypting: true)
    }

    /// `ciphertext` decrypted. Empty ciphertext decrypts to empty plaintext under every padding (a rule that
    /// decrypts an empty field gets an empty string, not an error).
    /// - Throws: `CipherError.notBlockAligned` when the ciphertext is not whole blocks, `.badPadding` when the
    ///   PKCS#5/#7 padding is invalid (usually a wrong key or IV), or an OpenSSL error.
    package func decrypt(_ ciphertext: [UInt8]) throws(CipherError) -> [UInt8] {
        let blockSize = algorithm.blockSize
        guard ciphertext.count % blockSize == 0 else {
            throw .notBlockAligned(length: ciphertext.count, blockSize: blockSize)
        }
        if ciphertext.isEmpty { return [] }
        var output = try run(ciphertext, encrypting: false)
        if padding == .zero {
            while output.last == 0 { output.removeLast() }
        }
        return output
    }

    /// One EVP pass over `input`; OpenSSL pads only for `.pkcs7` (the other paddings are handled around it).
    private func run(_ input: [UInt8], encrypting: Bool) throws(CipherError) -> [UInt8] {
        guard input.count <= Int(Int32.max) - algorithm.blockSize else { throw .inputTooLarge(length: input.count) }
        if algorithm == .des && !CryptoProviders.legacyAvailable { throw .legacyProviderUnavailable }
        guard let cipher = evpCipher(), let context = EVP_CIPHER_CTX_new() else {
            throw .openSSL("cannot create a cipher context for \(transformation)")
        }
        defer { EVP_CIPHER_CTX_free(context) }
        OpenSSLError.clear()
        let initialised = key.withUnsafeBufferPointer { keyBytes in
            iv.withUnsafeBufferPointer { ivBytes in
                EVP_CipherInit_ex(context, cipher, nil, keyBytes.baseAddress,
                                  ivBytes.isEmpty ? nil : ivBytes.baseAddress, encrypting ? 1 : 0)
            }
        }
        guard initialised == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        EVP_CIPHER_CTX_set_padding(context, padding == .pkcs7 ? 1 : 0)

        var output = [UInt8](repeating: 0, count: input.count + algorithm.blockSize)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let (updated, finished) = output.withUnsafeMutableBufferPointer { out -> (Int32, Int32) in
            guard let outBase = out.baseAddress else { return (0, 0) }
            var updated: Int32 = 1
            if !input.isEmpty {
                updated = input.withUnsafeBufferPointer { inBytes in
                    EVP_CipherUpdate(context, outBase, &written, inBytes.baseAddress, Int32(inBytes.count))
                }
                guard updated == 1 else { return (updated, 0) }
            }
            let finished = EVP_CipherFinal_ex(context, outBase + Int(written), &finalWritten)
            return (updated, finished)
        }
        guard updated == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        guard finished == 1 else {
            if !encrypting && padding == .pkcs7 {
                OpenSSLError.clear()
                throw .badPadding
            }
            throw .openSSL(OpenSSLError.lastMessage())
        }
        output.removeLast(output.count - Int(written + finalWritten))
        return output
    }

    /// The `EVP_CIPHER` for this algorithm, key length and mode.
    private func evpCipher() -> OpaquePointer? {
        switch (algorithm, mode, key.count) {
        case (.aes, .ecb, 16): EVP_aes_128_ecb()
        case (.aes, .ecb, 24): EVP_aes_192_ecb()
        case (.aes, .ecb, _): EVP_aes_256_ecb()
        case (.aes, .cbc, 16): EVP_aes_128_cbc()
        case (.aes, .cbc, 24): EVP_aes_192_cbc()
        case (.aes, .cbc, _): EVP_aes_256_cbc()
        case (.des, .ecb, _): EVP_des_ecb()
        case (.des, .cbc, _): EVP_des_cbc()
        case (.tripleDES, .ecb, _): EVP_des_ede3_ecb()
        case (.tripleDES, .cbc, _): EVP_des_ede3_cbc()
        }
    }

    private static func algorithm(named name: String) -> Algorithm? {
        switch name {
        case "AES": .aes
        case "DES": .des
        case "DESEDE", "TRIPLEDES", "3DES": .tripleDES
        default: nil
        }
    }

    private static func padding(named name: String) -> Padding? {
        switch name {
        case "PKCS5PADDING", "PKCS7PADDING": .pkcs7
        case "NOPADDING": Padding.none
        case "ZEROPADDING": .zero
        default: nil
        }
    }
}
