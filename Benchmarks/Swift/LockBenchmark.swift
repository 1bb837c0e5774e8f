// What `Locked` (BookRuleLocking, a pthread mutex ThreadSanitizer can see) costs against the standard
// library's `Synchronization.Mutex` it replaced (docs/architecture.md): `withLock` adding 1 to an `Int`, once by
// one thread (the usual, uncontended case), once by two threads at once. Prints nanoseconds per `withLock`
// for each and Locked ÷ Mutex; no target, it is recorded so a change of either shows.
import BookRuleLocking
import Foundation
import Synchronization

enum LockBenchmark {
    private final class Locks: @unchecked Sendable {
        let mutex = Mutex(0)
        let locked = Locked(0)
    }

    /// Nanoseconds per call of `body` run `iterations` times on each of `threads` threads together.
    private static func nanoseconds(threads: Int, iterations: Int, _ body: @escaping @Sendable () -> Void) -> Double {
        let group = DispatchGroup()
        let start = ContinuousClock.now
        for _ in 0..<threads {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<iterations { body() }
            }
        }
        group.wait()
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return seconds * 1e9 / Double(threads * iterations)
    }

    static func run(iterations: Int) {
        let locks = Locks()
        for threads in [1, 2] {
            // Best of three rounds each, interleaved, so a busy moment of the machine hits both alike.
            var mutex = Double.infinity
            var locked = Double.infinity
            for _ in 0..<3 {
                mutex = min(mutex, nanoseconds(threads: threads, iterations: iterations) { locks.mutex.withLock { $0 &+= 1 } })
                locked = min(locked, nanoseconds(threads: threads, iterations: iterations) { locks.locked.withLock { $0 &+= 1 } })
            }
            print("lock threads=\(threads) iterations=\(iterations) mutex_ns=\(String(format: "%.1f", mutex)) "
                + "locked_ns=\(String(format: "%.1f", locked)) ratio=\(String(format: "%.2f", locked / mutex))")
        }
    }
}
