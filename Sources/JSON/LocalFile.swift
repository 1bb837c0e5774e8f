#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file reads and atomic writes over POSIX calls, so errors carry the system's own message.
///
/// Writes that matter (recordings, snapshots) go to a temporary file in the same directory, are flushed to
/// disk and renamed over the target, then the directory is flushed: an interrupted write leaves either the old
/// file or the new one, never half of one.
public enum LocalFile {
    /// A failed read or write: the path and what the system said.
    public struct Failure: Error, CustomStringConvertible {
        /// The file or directory concerned.
        public let path: String
        /// What the system said.
        public let reason: String

        /// A failure at `path`, for callers that write through `replaceAtomically` with their own library.
        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        /// `path: reason`.
        public var description: String { "\(path): \(reason)" }
    }

    /// The largest file read whole (sources, recordings, snapshots); anything bigger is a mistake.
    public static let readLimit = 512 * 1024 * 1024

    /// The whole file at `path`.
    public static func read(_ path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: systemMessage()) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(path: path, reason: systemMessage()) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw Failure(path: path, reason: "it is a directory") }
        return try readAll(descriptor, path: path, size: info.st_size, limit: readLimit)
    }

    /// The whole file at `path` when it is a regular file of at most `limit` bytes; anything else (a
    /// directory, a FIFO, a device, a socket) is refused by its kind before it is opened, so a FIFO cannot
    /// block the read and `/dev/zero` cannot fill memory. The file is opened non-blocking and checked again
    /// after opening, in case it was swapped in between.
    public static func readRegularFile(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw Failure(path: path, reason: systemMessage()) }
        try requireRegular(info, path: path, limit: limit)
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: systemMessage()) }
        defer { close(descriptor) }
        guard fstat(descriptor, &info) == 0 else { throw Failure(path: path, reason: systemMessage()) }
        try requireRegular(info, path: path, limit: limit)
        return try readAll(descriptor, path: path, size: info.st_size, limit: limit)
    }

    private static func requireRegular(_ info: stat, path: String, limit: Int) throws(Failure) {
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else { throw Failure(path: path, reason: "it is \(kindName(kind)), not a regular file") }
        guard info.st_size <= limit else { throw tooLarge(path, limit: limit) }
    }

    /// What a file of this `st_mode & S_IFMT` is, for messages.
    private static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: "a directory"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "not a regular file"
        }
    }

    private static func tooLarge(_ path: String, limit: Int) -> Failure {
        let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit) bytes"
        return Failure(path: path, reason: "larger than \(size)")
    }

    /// Reads `descriptor` to its end, failing past `limit` bytes; `size` (the file's size, if known) sizes
    /// the buffer.
    private static func readAll(_ descriptor: Int32, path: String, size: off_t, limit: Int) throws(Failure) -> [UInt8] {
        guard size <= limit else { throw tooLarge(path, limit: limit) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(size))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { posixRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: systemMessage())
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            guard bytes.count <= limit else { throw tooLarge(path, limit: limit) }
        }
        return bytes
    }

    /// `realpath(3)`: the absolute path with every symbolic link, `.` and `..` resolved, or the system's
    /// reason it cannot be resolved (it does not exist, a loop, no permission).
    public static func realPath(_ path: String) throws(Failure) -> String {
        guard let resolved = realpath(path, nil) else { throw Failure(path: path, reason: systemMessage()) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Replaces the file at `path` with `bytes` atomically (temp file, fsync, rename, directory fsync). With
    /// `permissionsOf`, when that file exists, the new file gets its mode and, where the process may, its
    /// owner and group (set before any byte is written), so replacing a private file keeps it private;
    /// otherwise the mode is 0644 less the umask.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, permissionsOf model: String? = nil) throws(Failure) {
        var original = stat()
        let keeps = model.map { stat($0, &original) == 0 } ?? false
        try replaceAtomically(path) { (temporary) throws(Failure) in
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, keeps ? original.st_mode & 0o700 : 0o644)
            guard descriptor >= 0 else { throw Failure(path: path, reason: "creating \(temporary) failed: \(systemMessage())") }
            defer { close(descriptor) }
            if keeps {
                _ = fchown(descriptor, original.st_uid, original.st_gid)  // refused unless permitted: the mode still holds
                guard fchmod(descriptor, original.st_mode & 0o7777) == 0 else {
                    throw Failure(path: path, reason: "setting the mode of \(temporary) failed: \(systemMessage())")
                }
            }
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { buffer in
                    posixWrite(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw Failure(path: path, reason: "write failed: \(systemMessage())")
                }
                written += count
            }
        }
    }

    /// Replaces the file at `path` atomically with what `produce` writes to the temporary path it is given (a
    /// file in the same directory, which must not exist yet): the temporary file is flushed to disk and
    /// renamed over `path`, then the directory is flushed. Every atomic write goes through here (JSON files,
    /// exports built by libzip), so an interrupted write leaves the old file or the new one, never half.
    public static func replaceAtomically(_ path: String, producing produce: (String) throws(Failure) -> Void) throws(Failure) {
        let (directory, name) = split(path)
        guard !name.isEmpty, name != ".", name != ".." else {
            throw Failure(path: path, reason: "the path names a directory, not a file")
        }
        let prefix = directory == "/" ? "" : directory
        let temporary = prefix + "/.\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        do throws(Failure) {
            try produce(temporary)
            try flush(temporary, for: path)
            guard rename(temporary, path) == 0 else {
                throw Failure(path: path, reason: "rename to \(path) failed: \(systemMessage())")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        flushDirectory(of: path)
    }

    /// Moves the complete file at `source` over `destination` (same file system) and flushes the directory,
    /// so that after a crash the file is either still at `source` or wholly at `destination`.
    public static func moveAtomically(_ source: String, to destination: String) throws(Failure) {
        try flush(source, for: destination)
        guard rename(source, destination) == 0 else {
            throw Failure(path: destination, reason: "rename from \(source) failed: \(systemMessage())")
        }
        flushDirectory(of: destination)
    }

    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = path[..<slash].isEmpty ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    private static func flush(_ file: String, for path: String) throws(Failure) {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(path: path, reason: "cannot reopen \(file): \(systemMessage())") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw Failure(path: path, reason: "fsync failed: \(systemMessage())") }
    }

    private static func flushDirectory(of path: String) {
        let descriptor = open(split(path).directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    /// The size of the regular file at `path`, or nil when there is none.
    package static func size(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Creates `path` and its parents when missing.
    public static func makeDirectories(_ path: String) throws(Failure) {
        var current = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            current += (current.isEmpty || current.hasSuffix("/") ? "" : "/") + component
            if mkdir(current, 0o755) != 0 && errno != EEXIST {
                throw Failure(path: current, reason: "cannot create the directory: \(systemMessage())")
            }
        }
    }

    private static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}

// The instance methods named `read`/`write` on collections shadow the POSIX functions inside closures.
private func posixRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}

private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
