/// Why a symmetric encryption or decryption could not be done, worded for the author of a book-source rule.
package enum CipherError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The transformation string is not one of the supported `ALGORITHM[/MODE/PADDING]` forms.
    case unknownTransformation(String)
    /// The key has the wrong length for the algorithm; `expected` says which lengths work.
    case badKeyLength(algorithm: String, length: Int, expected: String)
    /// A CBC transformation was given no IV.
    case missingIV(transformation: String)
    /// The IV is not one block long.
    case badIVLength(length: Int, expected: Int)
    /// With `NoPadding` the data must be a whole number of blocks (and ciphertext always must be).
    case notBlockAligned(length: Int, blockSize: Int)
    /// Decryption produced invalid PKCS#5/#7 padding: the key, the IV, the mode or the padding is wrong, or
    /// the ciphertext is damaged.
    case badPadding
    /// The input is over 2 GiB, more than one OpenSSL call takes.
    case inputTooLarge(length: Int)
    /// OpenSSL's legacy provider, which holds single DES, could not be loaded.
    case legacyProviderUnavailable
    /// OpenSSL failed for another reason; its own message.
    case openSSL(String)

    /// One sentence saying what went wrong and what would work.
    package var description: String {
        switch self {
        case let .unknownTransformation(text):
            "unknown cipher transformation \"\(text)\": expected ALGORITHM or ALGORITHM/MODE/PADDING with AES, "
                + "DES or DESede, ECB or CBC, and PKCS5Padding, PKCS7Padding, NoPadding or ZeroPadding"
        case let .badKeyLength(algorithm, length, expected):
            "\(algorithm) key is \(length) bytes; it must be \(expected)"
        case let .missingIV(transformation):
            "\(transformation) needs an IV (one block long); none was given"
        case let .badIVLength(length, expected):
            "IV is \(length) bytes; it must be \(expected) bytes (one block)"
        case let .notBlockAligned(length, blockSize):
            "data is \(length) bytes, not a multiple of the \(blockSize)-byte block; "
                + "use a padding or check that the input is really ciphertext"
        case .badPadding:
            "decryption failed: bad padding (wrong key, IV, mode or padding, or damaged ciphertext)"
        case let .inputTooLarge(length):
            "data is \(length) bytes; at most \(Int32.max) can be encrypted at once"
        case .legacyProviderUnavailable:
            "single DES needs OpenSSL's legacy provider, which could not be loaded (is libssl3 complete?)"
        case let .openSSL(message):
            "OpenSSL failed: \(message)"
        }
    }
}
