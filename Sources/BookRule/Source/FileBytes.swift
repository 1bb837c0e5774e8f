#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files with POSIX calls, reporting errno as text a user can act on.
enum FileBytes {
    /// A read failure: the path and the system's reason.
    struct ReadError: Error, CustomStringConvertible {
        let description: String
    }

    /// The largest file bookrule reads whole (sources and recordings); anything bigger is a mistake.
    static let limit = 512 * 1024 * 1024

    static func contents(of path: String) throws(ReadError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw ReadError(description: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw ReadError(description: String(cString: strerror(errno))) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ReadError(description: "it is a directory") }
        guard info.st_size <= limit else { throw ReadError(description: "larger than \(limit / 1024 / 1024) MiB") }
        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ReadError(description: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { throw ReadError(description: "larger than \(limit / 1024 / 1024) MiB") }
        }
        return bytes
    }
}
