import Foundation

/// Where the polite fetcher gets its time from, so tests can check pacing and backoff without real sleeps.
///
/// Two kinds of time are needed: a monotonic one for pacing (`now`, `sleep(until:)`), and the wall clock
/// (`wallClock`) to read `Retry-After` HTTP dates and to say when deferred work may resume. A test clock
/// controls both, typically with `wallClock` = a fixed date + `now`.
///
/// A virtual clock can only advance time safely when every task it runs is idle. Sleepers on the clock are
/// visible to it; callers waiting for another caller's turn at the same host are not, so the fetcher reports
/// them through `callerWillBlock()` and `callerDidUnblock()`. Real clocks ignore those two calls.
public protocol FetchClock: Sendable {
    /// Monotonic time elapsed since a fixed origin chosen by the clock.
    var now: Duration { get }
    /// The current wall-clock date.
    var wallClock: Date { get }
    /// Suspends until `now` has reached `deadline` (returns at once if it already has). Throws
    /// `CancellationError` as soon as the calling task is cancelled.
    func sleep(until deadline: Duration) async throws
    /// Called, synchronously and before the caller suspends, when a caller starts waiting for another caller
    /// (for its turn at a host) rather than for the clock.
    func callerWillBlock()
    /// Called, synchronously, when a caller reported by `callerWillBlock()` is released (its turn came, or it
    /// was cancelled or failed), before it runs again.
    func callerDidUnblock()
}

extension FetchClock {
    /// Does nothing: real clocks need not know who is waiting.
    public func callerWillBlock() {}
    /// Does nothing: real clocks need not know who is waiting.
    public func callerDidUnblock() {}
}

/// The real clock: `ContinuousClock` for pacing (it keeps counting while the machine sleeps) and the system
/// date for the wall clock.
public struct SystemFetchClock: FetchClock {
    private let origin: ContinuousClock.Instant

    /// Creates a clock whose `now` counts from this moment.
    public init() {
        origin = ContinuousClock.now
    }

    /// Time elapsed since the clock was created.
    public var now: Duration { origin.duration(to: ContinuousClock.now) }

    /// The system's current date.
    public var wallClock: Date { Date() }

    /// Sleeps on `ContinuousClock` until `deadline` after the clock's creation.
    public func sleep(until deadline: Duration) async throws {
        try await Task.sleep(until: origin.advanced(by: deadline), tolerance: nil, clock: .continuous)
    }
}
