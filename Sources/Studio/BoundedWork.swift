import BookRuleDocument
import BookRuleLocking
import Dispatch

/// Runs async work for a request handler (which runs on a libmicrohttpd connection thread) and waits for it
/// at most `seconds`, or until `stopping` says so (the studio stops, the client went away): a site or script
/// that never answers costs the request a 503
/// and the work is cancelled, rather than holding the connection (and `stop()`, which waits for connections)
/// for good. The work runs on the studio's own thread (a `SerialQueueExecutor`), not on Swift's cooperative pool,
/// so a busy pool in an embedding app (or a test run) does not stall it, and it does not stall the pool.
enum BoundedWork {
    static func run<Value: Sendable>(seconds: Double, executor: SerialQueueExecutor, stopping: @Sendable () -> Bool,
                                     _ work: @escaping @Sendable () async -> Value) -> Value? {
        let done = DispatchSemaphore(value: 0)
        let result = Locked<Value?>(nil)
        let task = Task(executorPreference: executor) {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        let deadline = DispatchTime.now() + seconds
        while done.wait(timeout: min(deadline, .now() + 0.05)) == .timedOut {
            if stopping() || DispatchTime.now() >= deadline {
                task.cancel()
                return nil
            }
        }
        return result.withLock { $0 }
    }
}
