#if canImport(Glibc)
import Glibc
#endif

/// The secret every request to a server with a gate (the studio, `bookrule serve` off loopback) must carry: 32 bytes from the kernel's CSPRNG (`/dev/urandom`), as hex.
package enum AccessToken {
    /// A new token.
    package static func make() throws(HTTPServerError) -> String {
        let descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .noRandomness(reason: "cannot be opened") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 32)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return -1 }
                return read(descriptor, base + filled, buffer.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw .noRandomness(reason: "gave no bytes") }
            filled += count
        }
        return bytes.map { byte in
            let digits = Array("0123456789abcdef".utf8)
            return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 15)]], as: UTF8.self)
        }.joined()
    }

    /// Whether `given` is `expected`, taking the same time wherever they differ (a timing difference must not
    /// tell a guesser how much of a token was right).
    package static func matches(_ given: String, _ expected: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
