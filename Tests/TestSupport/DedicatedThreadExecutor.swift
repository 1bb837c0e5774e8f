import BookRuleDocument
import Foundation

/// A thread of its own for tests instead of Swift's cooperative pool. Tests that compute for seconds (megabytes
/// of real pages, thousands of random rules) would otherwise hold the pool (two threads on a two-core machine)
/// and stall every other suite's async tests, whose loopback servers give up after 10 s.
package enum DedicatedThreadExecutor {
    package static let shared = SerialQueueExecutor(label: "bookrule.tests.heavy")
}

/// `body` with its work on `DedicatedThreadExecutor.shared` instead of the cooperative pool.
package func offCooperativePool<T>(_ body: () async throws -> T) async throws -> T {
    try await withTaskExecutorPreference(DedicatedThreadExecutor.shared) { try await body() }
}
