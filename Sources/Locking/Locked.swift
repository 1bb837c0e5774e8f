import Glibc

/// A value reachable only under a lock: `withLock` runs a closure with the value to itself, so tasks and
/// threads can share it. The same contract as `Synchronization.Mutex` (`sending` in and out, typed throws).
///
/// Why not `Mutex` itself: on Linux it locks with futex system calls ThreadSanitizer cannot see, so each
/// time two threads met at a `Mutex` its value showed up as a data race in `make sanitize-thread` (the
/// happens-before of the unlock is invisible), and a real race would have been lost among them. A pthread
/// mutex is intercepted by ThreadSanitizer and costs a few nanoseconds more (docs/architecture.md).
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    /// Heap-allocated so it never moves; owned and freed by this object alone.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// A lock around `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        // A zeroed pthread_mutex_t is a valid default mutex on glibc; pthread_mutex_init with no attributes
        // cannot fail there.
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
