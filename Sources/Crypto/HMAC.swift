import CCrypto

/// Keyed message authentication (HMAC) with libcrypto, for Legado's `java.HMacHex(data, algorithm, key)`
/// and `java.HMacBase64`: API signatures some sites require.
package enum HMAC {
    /// The HMAC of `message` under `key` with `algorithm`'s digest.
    package static func authenticationCode(key: [UInt8], message: [UInt8], algorithm: MessageDigest.Algorithm) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let digest = algorithm.evp
        let done = key.withUnsafeBufferPointer { keyBytes in
            message.withUnsafeBufferPointer { messageBytes in
                output.withUnsafeMutableBufferPointer { out in
                    // A zero-length key or message is valid; libcrypto wants a non-NULL pointer for both.
                    CCrypto.HMAC(digest, keyBytes.baseAddress ?? UnsafePointer(out.baseAddress), Int32(keyBytes.count),
                                 messageBytes.baseAddress ?? UnsafePointer(out.baseAddress), messageBytes.count,
                                 out.baseAddress, &length)
                }
            }
        }
        guard done != nil else { return [] }
        return Array(output.prefix(Int(length)))
    }
}
