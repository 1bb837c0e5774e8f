import CCrypto

/// Reads OpenSSL's per-thread error queue, so a failure can say what libcrypto complained about.
package enum OpenSSLError {
    /// The oldest queued error as OpenSSL's text (e.g. `error:1C800064:Provider routines::bad decrypt`),
    /// or "no OpenSSL error queued"; the queue is emptied either way so a later call doesn't report a stale
    /// error.
    package static func lastMessage() -> String {
        let code = ERR_get_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return "no OpenSSL error queued" }
        var buffer = [CChar](repeating: 0, count: 256)
        buffer.withUnsafeMutableBufferPointer { ERR_error_string_n(code, $0.baseAddress, $0.count) }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Empties the error queue before a call whose failure will be reported.
    package static func clear() {
        ERR_clear_error()
    }
}
