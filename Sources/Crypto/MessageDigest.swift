import CCrypto

/// A message digest by algorithm (MD5, SHA-1, SHA-2), fed in pieces, for Legado's `java.md5Encode`,
/// `java.md5Encode16` and `java.digestHex(data, algorithm)`.
///
/// MD5 and SHA-1 are broken for security; rules use them as fingerprints (API signatures, cache keys), which
/// is why they are here. A value type sharing its OpenSSL context copy-on-write, like `SHA256`.
package struct MessageDigest: Sendable {
    /// The digest algorithms rules ask for.
    package enum Algorithm: String, Sendable, CaseIterable {
        /// MD5, 16 bytes (what `md5Encode` uses).
        case md5 = "MD5"
        /// SHA-1, 20 bytes.
        case sha1 = "SHA-1"
        /// SHA-224, 28 bytes.
        case sha224 = "SHA-224"
        /// SHA-256, 32 bytes.
        case sha256 = "SHA-256"
        /// SHA-384, 48 bytes.
        case sha384 = "SHA-384"
        /// SHA-512, 64 bytes.
        case sha512 = "SHA-512"

        /// The algorithm for a Java `MessageDigest` name as rules write it ("MD5", "SHA-256", "sha256",
        /// "SHA256"), case-insensitively and with or without the dash; nil for anything else.
        package init?(javaName: String) {
            let key = javaName.uppercased().filter { $0 != "-" && $0 != "_" }
            guard let match = Self.allCases.first(where: { $0.rawValue.filter { $0 != "-" } == key }) else {
                return nil
            }
            self = match
        }

        /// The digest length in bytes.
        package var byteCount: Int {
            switch self {
            case .md5: 16
            case .sha1: 20
            case .sha224: 28
            case .sha256: 32
            case .sha384: 48
            case .sha512: 64
            }
        }

        /// Whether this machine's libcrypto computes the algorithm (a FIPS-only configuration refuses MD5),
        /// checked once per algorithm. Digests of an unavailable algorithm must not be created.
        package var isAvailable: Bool {
            Self.availability[self] ?? false
        }

        private static let availability: [Algorithm: Bool] = Dictionary(
            uniqueKeysWithValues: allCases.map { ($0, DigestContext.isAvailable(digest: $0.evp)) })

        var evp: OpaquePointer? {
            switch self {
            case .md5: EVP_md5()
            case .sha1: EVP_sha1()
            case .sha224: EVP_sha224()
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        }
    }

    /// Which algorithm this digest computes.
    package let algorithm: Algorithm
    private var context: DigestContext

    /// A fresh digest of nothing with `algorithm`, which must be `isAvailable`.
    package init(_ algorithm: Algorithm) {
        self.algorithm = algorithm
        context = DigestContext(digest: algorithm.evp)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        context.update(bytes)
    }

    /// Adds `bytes` to the message.
    package mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the UTF-8 bytes of `text` to the message (Java's `String.getBytes()` on Android is UTF-8).
    package mutating func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// The digest of everything added; the digest itself is left unchanged.
    package func finalize() -> [UInt8] {
        context.digestOfCopy()
    }

    /// The digest of everything added as lower-case hex; the digest itself is left unchanged.
    package func hexDigest() -> String {
        HexEncoding.lowercase(finalize())
    }

    /// The digest of `bytes` with `algorithm`.
    package static func hash(_ bytes: [UInt8], algorithm: Algorithm) -> [UInt8] {
        var digest = MessageDigest(algorithm)
        digest.update(bytes)
        return digest.finalize()
    }

    /// The lower-case hex digest of the UTF-8 bytes of `text` with `algorithm` (Legado's `digestHex`).
    package static func hexDigest(of text: String, algorithm: Algorithm) -> String {
        var digest = MessageDigest(algorithm)
        digest.update(text)
        return digest.hexDigest()
    }

    /// Legado's `md5Encode`: the MD5 of the UTF-8 bytes of `text` as 32 lower-case hex digits.
    package static func md5Hex(_ text: String) -> String {
        hexDigest(of: text, algorithm: .md5)
    }

    /// Legado's `md5Encode16`: the middle 16 of the 32 hex digits (characters 8 up to 24), the "16-bit MD5"
    /// that Chinese sites use.
    package static func md5Hex16(_ text: String) -> String {
        String(md5Hex(text).dropFirst(8).prefix(16))
    }
}
