import BookRuleLocking
import Foundation
import Testing
import TestSupport
@testable import BookRuleHTTP

// MARK: - Virtual time

/// A deterministic clock for tests. Time stands still while any tracked task can run, and jumps to the next
/// sleeper's deadline the moment every tracked task is idle: asleep on this clock, or waiting for its turn at a
/// host (which the fetcher reports through `callerWillBlock`/`callerDidUnblock`).
///
/// Tracked tasks are those started with `spawn` or `run`; the test's own task stays outside and only awaits
/// their results (through a real-time watchdog, so a bug fails the test instead of hanging it). When every
/// tracked task waits for a turn and none sleeps, nobody can ever give them one: the clock records a deadlock
/// issue and cancels them.
final class VirtualFetchClock: FetchClock {
    private struct Sleeper {
        var id: Int
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// What the clock must do once it has let go of its lock.
    private struct Wakeups {
        var due: [CheckedContinuation<Void, any Error>] = []
        var deadlock: [@Sendable () -> Void]?

        func perform(now: Duration) {
            for continuation in due { continuation.resume() }
            if let deadlock {
                Issue.record("deadlock at \(now): every task waits for a turn and none sleeps")
                // Not here: the fetcher may be holding its lock while it calls the clock.
                Task { for cancel in deadlock { cancel() } }
            }
        }
    }

    private struct State {
        var now: Duration = .zero
        var sleepers: [Sleeper] = []
        var live: Set<Int> = []
        var cancellers: [Int: @Sendable () -> Void] = [:]
        var blocked = 0
        var nextID = 0

        mutating func newID() -> Int {
            nextID += 1
            return nextID
        }

        /// When every tracked task is idle, moves to the earliest deadline and takes the sleepers due then.
        mutating func advanceIfIdle() -> Wakeups {
            guard !live.isEmpty, sleepers.count + blocked >= live.count else { return Wakeups() }
            guard let next = sleepers.map(\.deadline).min() else {
                let cancellers = Array(cancellers.values)
                self.cancellers = [:]
                return Wakeups(deadlock: cancellers)
            }
            now = max(now, next)
            let due = sleepers.filter { $0.deadline <= now }
            sleepers.removeAll { $0.deadline <= now }
            return Wakeups(due: due.map(\.continuation))
        }
    }

    private let state = Locked(State())
    /// The wall-clock date at virtual time zero.
    let epoch: Date

    /// Thu, 05 Nov 2026 12:00:00 GMT.
    static let defaultEpoch = Date(timeIntervalSince1970: 1_793_880_000)

    init(epoch: Date = VirtualFetchClock.defaultEpoch) {
        self.epoch = epoch
    }

    var now: Duration { state.withLock { $0.now } }

    var wallClock: Date { epoch.addingTimeInterval(now.inSeconds) }

    func sleep(until deadline: Duration) async throws {
        let id = state.withLock { $0.newID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (immediate, wakeups) = state.withLock { state -> (Result<Void, any Error>?, Wakeups) in
                    if Task.isCancelled { return (.failure(CancellationError()), Wakeups()) }
                    if deadline <= state.now { return (.success(()), Wakeups()) }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return (nil, state.advanceIfIdle())
                }
                if let immediate { continuation.resume(with: immediate) }
                wakeups.perform(now: now)
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    func callerWillBlock() {
        let wakeups = state.withLock { state in
            state.blocked += 1
            return state.advanceIfIdle()
        }
        wakeups.perform(now: now)
    }

    func callerDidUnblock() {
        state.withLock { $0.blocked -= 1 }
    }

    private func enter() -> Int {
        state.withLock { state in
            let id = state.newID()
            state.live.insert(id)
            return id
        }
    }

    private func leave(_ id: Int) {
        let wakeups = state.withLock { state in
            state.live.remove(id)
            state.cancellers[id] = nil
            return state.advanceIfIdle()
        }
        wakeups.perform(now: now)
    }

    /// Starts a tracked task.
    func spawn<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) -> Task<T, any Error> {
        let id = enter()
        let task = Task {
            defer { leave(id) }
            return try await body()
        }
        state.withLock { state in
            if state.live.contains(id) { state.cancellers[id] = { task.cancel() } }
        }
        return task
    }

    /// Runs `body` as a tracked task and returns its result (see `outcome(of:)`).
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await outcome(of: spawn(body)).get()
    }

    /// Holds time still while `body` starts several tasks, so none of them runs ahead of the others.
    func holding<T>(_ body: () -> T) -> T {
        let id = enter()
        defer { leave(id) }
        return body()
    }
}

/// The test failed to finish a tracked task in real time.
struct WatchdogTimeout: Error, CustomStringConvertible {
    var description: String { "a tracked task did not finish within \(watchdogLimit) of real time (a hang)" }
}

/// How long a tracked task may take in real time: 60 s, stretched by `TestTime.scale`. Only a hang: the test's
/// time is virtual (under AddressSanitizer ten requests took longer than 10 s, and beside the ThreadSanitizer
/// suite a queued caller's cancellation did too).
let watchdogLimit = TestTime.bound(.seconds(60))

/// The result of `task`, or `WatchdogTimeout` (and an issue) when it takes more than `watchdogLimit` of real
/// time, so a hang fails the test instead of stopping the whole run. The watchdog's real sleep is cancelled as
/// soon as the task ends.
func outcome<T: Sendable>(of task: Task<T, any Error>) async -> Result<T, any Error> {
    let once = ResumeOnce<Result<T, any Error>>()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, any Error>, Never>) in
        once.set(continuation)
        let watchdog = Task {
            try? await Task.sleep(for: watchdogLimit)
            guard !Task.isCancelled else { return }
            if once.resume(with: .failure(WatchdogTimeout())) { Issue.record(WatchdogTimeout()) }
        }
        Task {
            let result = await task.result
            watchdog.cancel()
            once.resume(with: result)
        }
    }
}

/// A continuation resumed by whichever comes first.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation = Locked<CheckedContinuation<T, Never>?>(nil)

    func set(_ value: CheckedContinuation<T, Never>) {
        continuation.withLock { $0 = value }
    }

    /// Resumes with `value` unless already resumed; says whether it did.
    @discardableResult
    func resume(with value: T) -> Bool {
        guard let waiting = continuation.withLock({ $0.take() }) else { return false }
        waiting.resume(returning: value)
        return true
    }
}

/// `outcome(of:)` for a task that should succeed.
func value<T: Sendable>(of task: Task<T, any Error>) async throws -> T {
    try await outcome(of: task).get()
}
