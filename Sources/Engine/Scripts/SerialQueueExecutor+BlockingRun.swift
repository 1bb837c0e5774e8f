import Foundation

/// A thread of its own for async work that must not depend on Swift's cooperative pool (two threads on a
/// two-core machine): the fetch a script's blocking `java.ajax` waits for, and the steps of a source with
/// scripts, whose synchronous rule evaluation blocks while a script fetches. With this executor preferred, the
/// task and the classes it calls run here instead of on the pool (SE-0417).
final class ScriptFetchExecutor: TaskExecutor, @unchecked Sendable {
    private let queue = DispatchQueue(label: "bookrule.script-fetch")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Runs `body` on this executor and blocks the calling thread (never one of the pool's) until it ends.
    func blockingRun<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = OutcomeBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: self) {
            do {
                outcome.set(.success(try await body()))
            } catch {
                outcome.set(.failure(error))
            }
            done.signal()
        }
        done.wait()
        return try outcome.get()
    }
}

/// The result of a task handed across threads.
private final class OutcomeBox<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<T, any Error>?

    func set(_ value: Result<T, any Error>) {
        lock.withLock { result = value }
    }

    func get() throws -> T {
        guard let result = lock.withLock({ result }) else { throw CancellationError() }
        return try result.get()
    }
}
