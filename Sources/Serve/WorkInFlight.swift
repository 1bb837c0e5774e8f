import BookRuleLocking
import Dispatch

/// The work a stopping server waits for (requests being answered, site fetches, background fetch runs),
/// counted as each piece starts and ends, so the stop wakes when the last piece ends rather than looking
/// every few milliseconds.
final class WorkInFlight: Sendable {
    private let idle = DispatchGroup()
    private let count = Locked(0)

    /// A piece of work starts; it must `end()` once.
    func begin() {
        count.withLock { $0 += 1 }
        idle.enter()
    }

    /// A piece of work `begin()` counted has ended.
    func end() {
        count.withLock { $0 -= 1 }
        idle.leave()
    }

    /// How many pieces are running.
    var running: Int { count.withLock { $0 } }

    /// Waits until nothing runs or `deadline` passes; true when nothing runs.
    func waitUntilIdle(deadline: DispatchTime) -> Bool {
        idle.wait(timeout: deadline) == .success
    }
}
