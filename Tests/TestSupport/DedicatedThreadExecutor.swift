import Foundation

/// Runs jobs on a thread of its own instead of Swift's cooperative pool. Tests that compute for seconds
/// (megabytes of real pages, thousands of random rules) would otherwise hold the pool (two threads on a two-core
/// machine) and stall every other suite's async tests, whose loopback servers give up after 10 s.
package final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    package static let shared = DedicatedThreadExecutor()

    private let queue = DispatchQueue(label: "bookrule.tests.heavy")

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// `body` with its work on `DedicatedThreadExecutor.shared` instead of the cooperative pool.
package func offCooperativePool<T>(_ body: () async throws -> T) async throws -> T {
    try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) { try await body() }
}
