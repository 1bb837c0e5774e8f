import Glibc

/// A value reachable only under a lock: `withLock` runs a closure with the value to itself, so tasks and
/// threads can share it. The same contract as `Synchronization.Mutex` (`sending` in and out, typed throws).
///
/// Why not `Mutex` itself: on Linux it locks with futex system calls ThreadSanitizer cannot see, so each
/// time two threads met at a `Mutex` its value showed up as a data race in `make sanitize-thread` (the
/// happens-before of the unlock is invisible), and a real race would have been lost among them. A pthread
/// mutex is intercepted by ThreadSanitizer and costs about the same (docs/architecture.md).
package final class Locked<Value: ~Copyable>: @unchecked Sendable {
    // Both heap-allocated, owned and freed by this object alone: the mutex must never move, and a value kept
    // behind a pointer is not a stored property, so ThreadSanitizer sees plain accesses under the lock instead
    // of the exclusivity check of a class property (which, for an empty value such as `()`, it placed on the
    // object's header and reported against other threads reading that header to take the lock).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    /// A lock around `initialValue`.
    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        // A zeroed pthread_mutex_t is a valid default mutex on glibc; pthread_mutex_init with no attributes
        // cannot fail there.
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock, and returns what it returns.
    package func withLock<Result: ~Copyable, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
