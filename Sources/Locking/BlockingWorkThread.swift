#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs blocking work (a libcurl transfer, an SQLite call that may wait for a lock, parsing a large page,
/// hashing a file) on a thread of its own, off Swift's cooperative pool, and says whether the thread started.
/// The pool has one thread per core: on a 2-core machine, two blocked calls would stall every task.
///
/// Foundation's `Thread.start()` gives no sign when the system refuses a new thread; work waiting on it would
/// then wait forever. `pthread_create`'s answer lets the caller fail with an error instead.
package enum BlockingWorkThread {
    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new detached thread; false (and `body` never runs) when no thread could be made.
    package static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let work = Unmanaged.passRetained(Work(body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // libcurl with TLS and deep libxml2 walks want more than the smallest stacks some systems give.
        pthread_attr_setstacksize(&attributes, 1 << 20)
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { argument in
            guard let argument else { return nil }
            let work = Unmanaged<Work>.fromOpaque(argument).takeRetainedValue()
            work.body()
            return nil
        }, work.toOpaque())
        if created != 0 {
            work.release()
            return false
        }
        return true
    }

    /// Runs `body` on a thread of its own and returns its result; nil (and `body` never runs) when no thread
    /// could be made, so the caller can run it inline or fail.
    package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T? {
        await withCheckedContinuation { (continuation: CheckedContinuation<T?, Never>) in
            let started = start { continuation.resume(returning: body()) }
            if !started { continuation.resume(returning: nil) }
        }
    }
}
