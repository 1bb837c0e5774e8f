#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a file could not be hashed: the path and the system's reason, so the user can fix the file rather
/// than suspect the checksum.
public enum DigestFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// `open(2)` failed (missing file, no permission, a directory…).
    case cannotOpen(path: String, errno: Int32)
    /// `read(2)` failed part-way (an I/O error, a file on a vanished mount…).
    case readFailed(path: String, errno: Int32)

    /// A sentence naming the file and the system's reason.
    public var description: String {
        switch self {
        case let .cannotOpen(path, code): "cannot open \(path) to hash it: \(Self.reason(code))"
        case let .readFailed(path, code): "reading \(path) failed while hashing it: \(Self.reason(code))"
        }
    }

    private static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
