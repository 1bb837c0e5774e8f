import BookRuleDocument
import BookRuleLocking
import Foundation

/// The polite fetcher's pacing core: each host's places in flight (one by default, a source's
/// `concurrentRate` otherwise), the end-to-start gap after each response, and the pauses the seams around it
/// decide (a `Retry-After`, a backoff, a deferral).
///
/// A caller reserves its start time before it sleeps, so concurrent callers never share a slot; cancelling
/// the calling task ends its wait at once and frees its place. Every sleep is reported through `waits` as it
/// starts and ends, with the reason the host is paused.
final class HostPacer: Sendable {
    private let policy: PolitenessPolicy
    private let clock: any FetchClock
    private let random: FetchRandom
    private let waits: (@Sendable (FetchWait) -> Void)?
    private let hosts = Locked<[String: HostPace]>([:])
    private let lastID = Locked(0)

    init(policy: PolitenessPolicy, clock: any FetchClock, random: FetchRandom, waits: (@Sendable (FetchWait) -> Void)?) {
        self.policy = policy
        self.clock = clock
        self.random = random
        self.waits = waits
    }

    // MARK: - Taking a turn

    /// Waits for a free place among the host's requests in flight, then for the host's next start time, and
    /// returns the place's id holding it. Throws `blocked`'s error (and gives the place back) whenever it
    /// names one, the host's deferral while it lasts, and `CancellationError` when cancelled.
    func takeTurn(at origin: URLOrigin, blocked: @Sendable (String) -> FetchError?) async throws -> Int {
        let key = origin.description
        let id = lastID.withLock { id -> Int in
            id += 1
            return id
        }
        try await waitForPlace(at: key, id: id, blocked: blocked)
        while true {
            switch hosts.withLock({ plan(id, at: key, hosts: &$0, blocked: blocked) }) {
            case .go:
                return id
            case .fail(let error, let handoff):
                handoff.perform()
                throw error
            case .sleep(let deadline, let reason):
                let wait = FetchWait(request: id, origin: origin, phase: .started, duration: deadline - clock.now, reason: reason)
                waits?(wait)
                do {
                    try await clock.sleep(until: deadline)
                    waits?(wait.ended())
                } catch {
                    waits?(wait.ended())
                    release(id, at: key).perform()
                    throw error
                }
            }
        }
    }

    private enum Step {
        case go
        case sleep(until: Duration, reason: FetchWait.Reason)
        case fail(any Error, PlaceHandoff)
    }

    /// Decides, for a caller holding a place, whether it may start now, must sleep (its start time is then
    /// reserved), or must give up.
    private func plan(_ id: Int, at key: String, hosts: inout [String: HostPace], blocked: (String) -> FetchError?) -> Step {
        guard var host = hosts[key] else { return .fail(CancellationError(), PlaceHandoff()) }
        defer { hosts[key] = host }
        let now = clock.now
        if Task.isCancelled { return .fail(CancellationError(), host.releasePlace(of: id, clock: clock)) }
        if let error = blocked(key) ?? host.deferralError(key: key, now: now) {
            return .fail(error, host.releasePlace(of: id, clock: clock))
        }
        let start: Duration
        if let reserved = host.reservations[id], reserved >= host.pausedUntil, reserved >= host.nextEarliest {
            start = reserved
        } else {
            host.reservations[id] = nil
            start = host.earliestStart(excluding: id, now: now)
        }
        guard start <= now else {
            host.reservations[id] = start
            return .sleep(until: start, reason: host.reason(forStartAt: start))
        }
        host.reservations[id] = nil
        host.noteStart(at: now)
        return .go
    }

    /// Waits (cancellably) until the host has room for one more request in flight, and takes that room.
    private func waitForPlace(at key: String, id: Int, blocked: (String) -> FetchError?) async throws {
        let clock = self.clock
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = hosts.withLock { hosts -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    var host = hosts[key, default: HostPace()]
                    defer { hosts[key] = host }
                    if let error = blocked(key) ?? host.deferralError(key: key, now: clock.now) { return .failure(error) }
                    if host.inFlight < host.limit {
                        host.inFlight += 1
                        return .success(())
                    }
                    host.waiters.append(PlaceWaiter(id: id, continuation: continuation))
                    clock.callerWillBlock()
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = hosts.withLock { hosts -> PlaceWaiter? in
                guard let index = hosts[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                clock.callerDidUnblock()
                return hosts[key]?.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: - Ending a turn

    /// Gives place `id` back without a request having been sent (a later seam refused it).
    func release(_ id: Int, at key: String) -> PlaceHandoff {
        hosts.withLock { $0[key]?.releasePlace(of: id, clock: clock) ?? PlaceHandoff() }
    }

    /// Ends turn `id` after its response ended at `now` with `outcome`: gives the place to the next caller
    /// and sets the host's next start. A `Retry-After` within the cap is the wait (never shorter than the host
    /// delay, and the delay is not raised); one over the cap defers the host and returns the error for every
    /// caller (waiting ones are failed through the handoff). A failure that says nothing raises the gap to
    /// `failureDelay`, which then halves back down with each success.
    func finish(_ id: Int, at key: String, outcome: AttemptOutcome, now: Duration, wallNow: Date) -> (PlaceHandoff, FetchError?) {
        hosts.withLock { hosts in
            guard var host = hosts[key] else { return (PlaceHandoff(), nil) }
            defer { hosts[key] = host }
            var handoff = host.releasePlace(of: id, clock: clock)
            let base = host.rate == nil ? policy.delay : .zero
            if let retryAfter = outcome.retryAfter {
                if retryAfter > policy.retryAfterCap {
                    let until = wallNow.addingTimeInterval(retryAfter.inSeconds)
                    let error = FetchError.hostDeferred(host: key, until: until, retryAfter: retryAfter)
                    host.deferred = HostPace.Deferral(until: now + retryAfter, date: until, retryAfter: retryAfter)
                    host.pause(until: now + retryAfter, reason: .retryAfter)
                    handoff.failed += host.takeAllWaiters(clock: clock).map { ($0, error) }
                    return (handoff, error)
                }
                var wait = max(retryAfter, base)
                if policy.jitter, base > .zero { wait += (base / 2).scaled(by: random.unit()) }
                host.pause(until: now + retryAfter, reason: .retryAfter)
                host.setGap(until: now + wait, reason: .retryAfter)
                return (handoff, nil)
            }
            if outcome.failed == true {
                let extra = policy.failureDelay - base
                if extra > host.extraDelay { host.extraDelay = extra }
            } else if outcome.failed == false {
                host.extraDelay = host.extraDelay < .milliseconds(1) ? .zero : host.extraDelay / 2
            }
            let gap = base + host.extraDelay
            var drawn = gap
            if policy.jitter, gap > .zero { drawn = max(gap, gap.scaled(by: 1 + 0.5 * random.unit())) }
            host.setGap(until: now + drawn, reason: host.extraDelay > .zero ? .failureDelay : .pacing)
            return (handoff, nil)
        }
    }

    // MARK: - What the other seams decide

    /// Pauses the host until `deadline` (a backoff chosen by the retry policy).
    func pause(at key: String, until deadline: Duration, reason: FetchWait.Reason) {
        hosts.withLock { $0[key]?.pause(until: deadline, reason: reason) }
    }

    /// Defers the host until `date` (another run learnt a `Retry-After` over the cap).
    func deferHost(at key: String, until date: Date, retryAfter: Duration) {
        let now = clock.now
        hosts.withLock { $0[key]?.deferred = HostPace.Deferral(until: now + retryAfter, date: date, retryAfter: retryAfter) }
    }

    /// Removes every caller waiting for a place at `key`, to be failed with `error` (an open breaker).
    func failWaiters(at key: String, with error: FetchError) -> PlaceHandoff {
        hosts.withLock { hosts in
            PlaceHandoff(failed: hosts[key]?.takeAllWaiters(clock: clock).map { ($0, error) } ?? [])
        }
    }

    /// When the next request to `key` may start, at the earliest, seen from `now`.
    func nextStart(at key: String, now: Duration) -> Duration {
        hosts.withLock { hosts in
            guard let host = hosts[key] else { return now }
            return max(host.nextEarliest, host.pausedUntil, now)
        }
    }

    /// Replaces the host's pacing with `rate` (nil: the default), giving new places to waiters.
    func setRate(_ rate: ConcurrentRate?, at key: String) -> PlaceHandoff {
        hosts.withLock { hosts in
            var host = hosts[key, default: HostPace()]
            defer { hosts[key] = host }
            host.rate = rate
            return host.grantWaiters(clock: clock)
        }
    }

    /// Whether the host runs one request at a time (no `concurrentRate`).
    func isSerial(at key: String) -> Bool {
        hosts.withLock { $0[key]?.rate == nil }
    }
}
