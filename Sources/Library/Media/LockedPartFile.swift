#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A download's `NAME.part` file, open and exclusively locked for a whole run of the download.
///
/// The lock is taken before anything about the partial data is decided (continue, cut, discard), so a second
/// process downloading the same file is refused before it can touch the data, and discarding cuts the file
/// instead of unlinking it (an unlinked, re-created `.part` would be a new file with a new lock). The lock
/// goes with the descriptor, so it also ends with the process, even on kill -9.
///
/// Whoever writes to the file holds this object, never a copy of its descriptor: once `close()` has run, a
/// copied number could already name another file opened since.
final class LockedPartFile: Sendable {
    /// The open file (-1 once closed); owned here and closed once, by `close()` or `deinit`. Behind a lock,
    /// so closing never interleaves with a write on the transfer thread.
    private let descriptor: Locked<Int32>
    let path: String

    /// Opens (creating, unless `creating` is false) and locks `path`; throws `.locked` when another process
    /// holds it.
    init(path: String, creating: Bool = true) throws(MediaDownloadError) {
        // The lock must end up on the file that is `path` now: between this open and the lock, the run that
        // held it may have renamed it to the finished file or unlinked it. Then start again.
        for _ in 0..<100 {
            let descriptor = open(path, O_RDWR | O_CLOEXEC | (creating ? O_CREAT : 0), 0o644)
            guard descriptor >= 0 else { throw .file(path: path, reason: PartialFileWriter.systemMessage()) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let code = errno
                closeDescriptor(descriptor)
                if code == EWOULDBLOCK { throw .locked(path: path) }
                throw .file(path: path, reason: String(cString: strerror(code)))
            }
            var opened = stat()
            var current = stat()
            if fstat(descriptor, &opened) == 0, stat(path, &current) == 0,
               opened.st_dev == current.st_dev, opened.st_ino == current.st_ino {
                self.descriptor = Locked(descriptor)
                self.path = path
                return
            }
            closeDescriptor(descriptor)
            if !creating { throw .file(path: path, reason: "it was removed") }
        }
        throw .locked(path: path)
    }

    deinit {
        descriptor.withLock { if $0 >= 0 { closeDescriptor($0) } }
    }

    /// Runs `body` with the open descriptor (-1 once closed), which stays open until `body` returns.
    func withDescriptor<T, E: Error>(_ body: (Int32) throws(E) -> T) throws(E) -> T {
        try descriptor.withLock { (descriptor: inout Int32) throws(E) -> T in try body(descriptor) }
    }

    /// Cuts the file to `length` bytes and places the write position there.
    func cut(to length: Int64) throws(MediaDownloadError) {
        let done = withDescriptor { descriptor in
            ftruncate(descriptor, off_t(length)) == 0 && lseek(descriptor, off_t(length), SEEK_SET) == off_t(length)
        }
        guard done else { throw .file(path: path, reason: PartialFileWriter.systemMessage()) }
    }

    /// Closes the file, which releases the lock.
    func close() {
        descriptor.withLock { descriptor in
            if descriptor >= 0 { closeDescriptor(descriptor) }
            descriptor = -1
        }
    }
}

// The instance method `close()` shadows the POSIX function inside the class.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
