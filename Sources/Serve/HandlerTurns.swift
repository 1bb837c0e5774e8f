import Dispatch
import Foundation

/// A few turns for request handlers' CPU work, taken in arrival order (as far as the kernel wakes waiters in
/// order). libmicrohttpd runs a thread per connection, so 50 readers are 50 runnable threads on two cores, and
/// each request is preempted mid-way by the others: the slowest 1% waited 45 ms for 0.13 ms of work
/// (docs/performance.md, serve-content). Work in turns runs whole instead, the rest wait blocked, which cut that
/// tail by a factor of three at the same rate. Only work that never waits on a site may take a turn: a turn held
/// through a 60 s fetch would stall every reader.
final class HandlerTurns: Sendable {
    private let semaphore: DispatchSemaphore

    /// Twice the processors: enough to keep them busy while a turn waits on SQLite or the socket.
    init(count: Int = max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)) {
        semaphore = DispatchSemaphore(value: count)
    }

    /// Runs `work` in a turn, waiting for one first.
    func run<Value, Failure: Error>(_ work: () throws(Failure) -> Value) throws(Failure) -> Value {
        semaphore.wait()
        defer { semaphore.signal() }
        return try work()
    }
}
