import Glibc

/// A self-pipe that wakes a thread blocked in `poll`: other threads `signal()`, the thread polls `readFD` and
/// `drain()`s it. Both ends belong to this object and close with it, so a signal to a thread that has already
/// ended writes into a pipe still open, never into a reused descriptor.
final class WakeSignal: @unchecked Sendable {
    /// The end a thread polls for reading.
    let readFD: Int32
    private let writeFD: Int32

    /// A new pipe; nil when the process has no descriptors left.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        readFD = ends[0]
        writeFD = ends[1]
        // pipe2 needs _GNU_SOURCE, which Swift's Glibc module does not define.
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
    }

    deinit {
        close(readFD)
        close(writeFD)
    }

    /// Wakes the polling thread (a full pipe already will).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeFD, &byte, 1)
    }

    /// Empties the pipe after a wake-up.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readFD, &bytes, bytes.count) > 0 {}
    }
}
