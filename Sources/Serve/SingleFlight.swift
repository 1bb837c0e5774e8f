import BookRuleLocking
import Dispatch

/// One piece of work per key at a time, however many ask: the first caller for a key starts it, and every
/// caller that asks while it runs waits for the same result instead of starting its own. Ten readers opening one
/// unsaved chapter cause one site request.
///
/// Callers are server connection threads, which may block: `run` waits at most `seconds` (the work goes on and
/// its result is kept, as a chapter fetched is saved whether or not its first reader still waits).
final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private final class Flight: Sendable {
        let finished = DispatchGroup()
        let result = Locked<Value?>(nil)
        let task = Locked<Task<Void, Never>?>(nil)
    }

    private let flights = Locked<[Key: Flight]>([:])
    /// Where each flight is counted while it runs, for a server's stop to wait on.
    private let counted: WorkInFlight?

    /// Flights counted in `work` while they run.
    init(countingIn work: WorkInFlight? = nil) {
        counted = work
    }

    /// Cancels all work running: what it awaits (a site's answer, a wait for the host's turn) ends at once, and
    /// what it is writing (a chapter's transaction) finishes.
    func cancelAll() {
        let running = flights.withLock { Array($0.values) }
        for flight in running { flight.task.withLock { $0 }?.cancel() }
    }

    /// The result of `work` for `key`, started now or already running; nil when it did not finish within
    /// `seconds`.
    func run(_ key: Key, seconds: Double, _ work: @escaping @Sendable () async -> Value) -> Value? {
        let flight = join(key, work)
        guard flight.finished.wait(timeout: .now() + seconds) == .success else { return nil }
        return flight.result.withLock { $0 }
    }

    /// The result of `work` for `key`, started now or already running, awaited without blocking a thread (for
    /// work a task does in the background).
    func value(_ key: Key, _ work: @escaping @Sendable () async -> Value) async -> Value? {
        let flight = join(key, work)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            flight.finished.notify(queue: .global()) { continuation.resume() }
        }
        return flight.result.withLock { $0 }
    }

    /// The flight for `key`: the running one, or a new one running `work`. The task is made and recorded
    /// under the table's lock, so `cancelAll` cannot see a flight before its task (a stop that came in between
    /// once let a site wait run to its end).
    private func join(_ key: Key, _ work: @escaping @Sendable () async -> Value) -> Flight {
        flights.withLock { table -> Flight in
            if let running = table[key] { return running }
            let flight = Flight()
            flight.finished.enter()
            table[key] = flight
            counted?.begin()
            let task = Task { [counted] in
                defer { counted?.end() }
                let value = await work()
                flight.result.withLock { $0 = value }
                // Gone from the table before the waiters wake: a later caller starts afresh (and finds what this
                // one saved).
                self.flights.withLock { $0[key] = nil }
                flight.finished.leave()
            }
            flight.task.withLock { $0 = task }
            return flight
        }
    }
}
