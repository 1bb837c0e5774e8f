import CCrypto

/// AES-256-GCM over libcrypto's EVP layer: what keeps stored logins unreadable and tamper-evident at rest.
///
/// A sealed box is the 12-byte random nonce, the ciphertext and the 16-byte tag, in that order; `open`
/// refuses any box whose tag does not match (a wrong key, or bytes changed on disk) rather than returning
/// garbage. A fresh nonce comes from the system's random generator (`getrandom`) for every seal, so one key
/// can seal many times.
package enum SealedBox {
    /// Bytes of key AES-256 takes.
    package static let keySize = 32
    private static let nonceSize = 12
    private static let tagSize = 16

    /// Why a box could not be sealed or opened.
    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The key is not `keySize` bytes.
        case badKeyLength(Int)
        /// The box is shorter than a nonce and a tag.
        case truncated(Int)
        /// The tag does not match: the wrong key, or the bytes were changed.
        case notAuthentic
        /// OpenSSL failed for another reason; its own message.
        case openSSL(String)

        /// One sentence saying what went wrong.
        package var description: String {
            switch self {
            case .badKeyLength(let length): "the key is \(length) bytes; AES-256-GCM takes \(SealedBox.keySize)"
            case .truncated(let length): "the sealed data is \(length) bytes, shorter than a nonce and a tag"
            case .notAuthentic: "the sealed data does not authenticate (a different key, or the bytes were changed)"
            case .openSSL(let message): "OpenSSL failed: \(message)"
            }
        }
    }

    /// A new random key.
    package static func newKey() -> [UInt8] {
        randomBytes(keySize)
    }

    /// `plaintext` sealed under `key`: nonce, ciphertext, tag.
    package static func seal(_ plaintext: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        guard key.count == keySize else { throw .badKeyLength(key.count) }
        let nonce = randomBytes(nonceSize)
        var tag = [UInt8](repeating: 0, count: tagSize)
        let ciphertext = try run(plaintext, key: key, nonce: nonce, tag: &tag, encrypting: true)
        return nonce + ciphertext + tag
    }

    /// The plaintext of `box`, sealed under `key`.
    /// - Throws: `.notAuthentic` when the tag does not match.
    package static func open(_ box: [UInt8], key: [UInt8]) throws(Failure) -> [UInt8] {
        guard key.count == keySize else { throw .badKeyLength(key.count) }
        guard box.count >= nonceSize + tagSize else { throw .truncated(box.count) }
        let nonce = Array(box.prefix(nonceSize))
        var tag = Array(box.suffix(tagSize))
        let ciphertext = Array(box.dropFirst(nonceSize).dropLast(tagSize))
        return try run(ciphertext, key: key, nonce: nonce, tag: &tag, encrypting: false)
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// One GCM pass: on encryption `tag` receives the tag, on decryption it is the tag checked.
    private static func run(_ input: [UInt8], key: [UInt8], nonce: [UInt8], tag: inout [UInt8],
                            encrypting: Bool) throws(Failure) -> [UInt8] {
        guard input.count < Int(Int32.max) else { throw .openSSL("input of \(input.count) bytes is too large") }
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL("cannot create a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        OpenSSLError.clear()
        let mode: Int32 = encrypting ? 1 : 0
        guard EVP_CipherInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil, mode) == 1,
              EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonceSize), nil) == 1 else {
            throw .openSSL(OpenSSLError.lastMessage())
        }
        let keyed = key.withUnsafeBufferPointer { keyBytes in
            nonce.withUnsafeBufferPointer { nonceBytes in
                EVP_CipherInit_ex(context, nil, nil, keyBytes.baseAddress, nonceBytes.baseAddress, mode)
            }
        }
        guard keyed == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        var output = [UInt8](repeating: 0, count: input.count + 16)
        var written: Int32 = 0
        if !input.isEmpty {
            let updated = output.withUnsafeMutableBufferPointer { out in
                input.withUnsafeBufferPointer { bytes in
                    EVP_CipherUpdate(context, out.baseAddress, &written, bytes.baseAddress, Int32(bytes.count))
                }
            }
            guard updated == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        }
        if !encrypting {
            let set = tag.withUnsafeMutableBytes { EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagSize), $0.baseAddress) }
            guard set == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        }
        var final: Int32 = 0
        let finished = output.withUnsafeMutableBufferPointer { out in
            EVP_CipherFinal_ex(context, out.baseAddress.map { $0 + Int(written) }, &final)
        }
        guard finished == 1 else {
            OpenSSLError.clear()
            if encrypting { throw .openSSL("cannot finish the encryption") }
            throw .notAuthentic
        }
        if encrypting {
            let got = tag.withUnsafeMutableBytes { EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagSize), $0.baseAddress) }
            guard got == 1 else { throw .openSSL(OpenSSLError.lastMessage()) }
        }
        return Array(output.prefix(Int(written + final)))
    }
}
