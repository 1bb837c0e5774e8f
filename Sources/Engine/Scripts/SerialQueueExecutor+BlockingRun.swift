import BookRuleDocument
import Foundation

extension SerialQueueExecutor {
    /// An executor for the fetch a script's blocking `java.ajax` waits for, and for the steps of a source with
    /// scripts, whose synchronous rule evaluation blocks while a script fetches.
    static func scriptFetch() -> SerialQueueExecutor {
        SerialQueueExecutor(label: "bookrule.script-fetch")
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
