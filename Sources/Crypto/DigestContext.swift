import CCrypto

/// Owns one OpenSSL `EVP_MD_CTX`, the running state of a hash; the only place one is created or freed.
///
/// A class, so the context has exactly one owner that frees it in `deinit` however many value-type copies
/// (`SHA256`, `MessageDigest`) refer to it. Those copies share it copy-on-write: they call `update` only on a
/// context they hold uniquely and copy it first otherwise, so a shared context is only ever read, which is
/// why it can be `@unchecked Sendable`.
package final class DigestContext: @unchecked Sendable {
    private let context: OpaquePointer

    /// Whether libcrypto can run `digest` here: false for an algorithm its configuration refuses (MD5 under a
    /// FIPS-only OpenSSL). Callers whose algorithm comes from input ask this first, so the traps of `init`
    /// are left for a machine out of memory.
    package static func isAvailable(digest: OpaquePointer?) -> Bool {
        guard let digest, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        return EVP_DigestInit_ex(context, digest, nil) == 1
    }

    /// A fresh context for `digest` (an `EVP_MD` such as `EVP_sha256()`).
    ///
    /// Traps when OpenSSL cannot allocate or initialise it, as Swift itself does when memory runs out: with an
    /// algorithm `isAvailable` accepted (or SHA-256, which every configuration has), that happens only without
    /// memory, never because of the input.
    package init(digest: OpaquePointer?) {
        guard let digest, let context = EVP_MD_CTX_new() else {
            fatalError("libcrypto could not create a digest context")
        }
        guard EVP_DigestInit_ex(context, digest, nil) == 1 else {
            EVP_MD_CTX_free(context)
            fatalError("libcrypto could not initialise a digest: \(OpenSSLError.lastMessage())")
        }
        self.context = context
    }

    /// An independent copy of `other`'s state (`EVP_MD_CTX_copy_ex`), for copy-on-write and for finalising
    /// without consuming the running hash.
    package init(copying other: DigestContext) {
        guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto could not create a digest context") }
        guard EVP_MD_CTX_copy_ex(context, other.context) == 1 else {
            EVP_MD_CTX_free(context)
            fatalError("libcrypto could not copy a digest context: \(OpenSSLError.lastMessage())")
        }
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
    }

    /// Adds `bytes` to the message.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // EVP_DigestUpdate fails only on a context that was never initialised, which init rules out.
        let status = EVP_DigestUpdate(context, base, bytes.count)
        precondition(status == 1, "EVP_DigestUpdate failed: \(OpenSSLError.lastMessage())")
    }

    /// The digest of everything added so far, computed on a copy so this context can go on hashing.
    package func digestOfCopy() -> [UInt8] {
        let copy = DigestContext(copying: self)
        return copy.finalizeInPlace()
    }

    /// Finalises this context; it must not be updated afterwards. Only called on a private copy.
    private func finalizeInPlace() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(status == 1, "EVP_DigestFinal_ex failed: \(OpenSSLError.lastMessage())")
        return Array(digest.prefix(Int(length)))
    }
}
