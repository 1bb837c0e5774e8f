import Dispatch

/// A task executor that runs its jobs one at a time on a serial dispatch queue of its own, not on Swift's
/// cooperative pool (one thread per core: two here). Work that blocks a thread — a script's synchronous
/// `java.ajax`, the studio's steps on a libmicrohttpd thread, a test computing for seconds — prefers one of these
/// (`withTaskExecutorPreference`, SE-0417), so it neither stalls the pool nor waits for it.
package final class SerialQueueExecutor: TaskExecutor, Sendable {
    private let queue: DispatchQueue

    /// An executor on a new serial queue named `label` (shown by debuggers and crash reports).
    package init(label: String) {
        queue = DispatchQueue(label: label)
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
