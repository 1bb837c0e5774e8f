import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Opens a FIFO for writing (and closes it) if nothing disarmed the watchdog within `seconds` (times
/// `TestTime.scale`): a reader that blocked on the FIFO then sees its end, so a test of "a FIFO is refused
/// at once" fails on code that waits on the FIFO instead of hanging the suite.
package final class FIFOWatchdog: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Arms the watchdog for the FIFO at `path`.
    package init(_ path: String, seconds: Double = 10) {
        let done = self.done
        let wait = TestTime.seconds(seconds)
        Thread.detachNewThread {
            guard done.wait(timeout: .now() + wait) == .timedOut else { return }
            // Non-blocking: with no reader left, the open fails at once (ENXIO) instead of waiting for one.
            let descriptor = open(path, O_WRONLY | O_NONBLOCK)
            if descriptor >= 0 { close(descriptor) }
        }
    }

    /// Stops the watchdog: the FIFO is left alone.
    package func disarm() {
        done.signal()
    }
}
