import BookRuleCrypto
import CCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SHA-256 (FIPS 180-4), fed in pieces, for checking downloaded files against a published checksum.
///
/// A drop-in replacement for bookrule's hand-written `SHA256` (same `init()`, `update(_:)`, `hexDigest()`,
/// `hexDigest(of:)`), computed by libcrypto's EVP layer, which uses the CPU's SHA extensions where present
/// and is several times faster (see NOTES.md). A value type: copies are independent hashes. The OpenSSL
/// context behind it is owned by one `DigestContext` object and shared copy-on-write, so copying never
/// double-frees and a copy that is never updated costs no allocation.
public struct SHA256: Sendable {
    /// The digest length in bytes.
    public static let byteCount = 32

    /// How much `hashFile(atPath:)` reads per call: 1 MiB keeps memory flat for files of any size while
    /// amortising the system call.
    public static let fileChunkSize = 1 << 20

    private var context: DigestContext

    /// A fresh hash of nothing.
    public init() {
        context = DigestContext(digest: EVP_sha256())
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) { context = DigestContext(copying: context) }
        context.update(bytes)
    }

    /// Adds `bytes` to the message.
    public mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything added. The hash itself is left unchanged and can go on being fed.
    public func finalize() -> [UInt8] {
        context.digestOfCopy()
    }

    /// The digest of everything added, as 64 lower-case hex digits. The hash itself is left unchanged.
    public func hexDigest() -> String {
        HexEncoding.lowercase(finalize())
    }

    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var hash = SHA256()
        hash.update(bytes)
        return hash.finalize()
    }

    /// The 32-byte digest of the bytes in `buffer`.
    public static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var hash = SHA256()
        hash.update(buffer)
        return hash.finalize()
    }

    /// The digest of `bytes` as 64 lower-case hex digits.
    public static func hexDigest(of bytes: [UInt8]) -> String {
        HexEncoding.lowercase(hash(bytes))
    }

    /// The lower-case hex digest of the file at `path`, read in `fileChunkSize` pieces so a file of any size
    /// is hashed in constant memory.
    /// - Throws: `DigestFileError` when the file cannot be opened or a read fails.
    public static func hashFile(atPath path: String) throws(DigestFileError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: fileChunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var hash = SHA256()
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, errno: errno)
            }
            hash.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return hash.hexDigest()
    }
}
