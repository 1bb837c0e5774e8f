import Foundation

/// One host's state in the pacing core: places in flight, waiters, the next start time and its reason.
struct HostPace {
    /// A host's deferral after a `Retry-After` over the cap.
    struct Deferral {
        var until: Duration
        var date: Date
        var retryAfter: Duration
    }

    var rate: ConcurrentRate?
    /// Callers holding a place (waiting for their start time or in flight).
    var inFlight = 0
    var waiters: [PlaceWaiter] = []
    /// No start before this: the end of the last response plus the gap.
    var nextEarliest: Duration = .zero
    /// Why `nextEarliest` is where it is.
    var gapReason = FetchWait.Reason.pacing
    /// No start before this: Retry-After or backoff.
    var pausedUntil: Duration = .zero
    /// Why `pausedUntil` is where it is.
    var pauseReason = FetchWait.Reason.backoff
    /// Start times reserved by callers sleeping until them.
    var reservations: [Int: Duration] = [:]
    /// `.interval` rate: when the last request started.
    var lastStart: Duration?
    /// `.window` rate: recent start times.
    var starts: [Duration] = []
    /// Added to the base delay after failures; halves with each success.
    var extraDelay: Duration = .zero
    var deferred: Deferral?

    /// How many requests may be in flight at once.
    var limit: Int {
        if case .window(let requests, _)? = rate { return max(1, requests) }
        return 1
    }

    func deferralError(key: String, now: Duration) -> FetchError? {
        guard let deferred, now < deferred.until else { return nil }
        return .hostDeferred(host: key, until: deferred.date, retryAfter: deferred.retryAfter)
    }

    /// The earliest time a new request may start, after every other caller's reservation.
    func earliestStart(excluding id: Int, now: Duration) -> Duration {
        var start = max(now, nextEarliest, pausedUntil)
        switch rate {
        case .interval(let interval)?:
            if let lastStart { start = max(start, lastStart + interval) }
        case .window(let requests, let window)?:
            var times = starts.filter { $0 > now - window }
            times += reservations.filter { $0.key != id }.map(\.value)
            times.sort()
            if let last = times.last { start = max(start, last) }
            if times.count >= requests { start = max(start, times[times.count - requests] + window) }
        case nil:
            break
        }
        return start
    }

    /// Why a start at `start` is not sooner.
    func reason(forStartAt start: Duration) -> FetchWait.Reason {
        if start == pausedUntil { return pauseReason }
        if start == nextEarliest { return gapReason }
        return .pacing
    }

    /// Counts a start at `now` against the host's `concurrentRate`.
    mutating func noteStart(at now: Duration) {
        switch rate {
        case .interval?:
            lastStart = now
        case .window(_, let window)?:
            starts.removeAll { $0 <= now - window }
            starts.append(now)
        case nil:
            break
        }
    }

    /// No request starts before `deadline` (a pause never shortens).
    mutating func pause(until deadline: Duration, reason: FetchWait.Reason) {
        guard deadline > pausedUntil else { return }
        pausedUntil = deadline
        pauseReason = reason
    }

    /// The next request starts no sooner than `deadline` (the gap never shortens).
    mutating func setGap(until deadline: Duration, reason: FetchWait.Reason) {
        guard deadline > nextEarliest else { return }
        nextEarliest = deadline
        gapReason = reason
    }

    /// Gives up a place: to the first waiter if there is room, otherwise frees it.
    mutating func releasePlace(of id: Int, clock: any FetchClock) -> PlaceHandoff {
        reservations[id] = nil
        if inFlight <= limit, !waiters.isEmpty {
            clock.callerDidUnblock()
            return PlaceHandoff(resumed: [waiters.removeFirst()])
        }
        inFlight = max(0, inFlight - 1)
        return PlaceHandoff()
    }

    /// Gives free places to waiters (after the limit was raised).
    mutating func grantWaiters(clock: any FetchClock) -> PlaceHandoff {
        var granted = PlaceHandoff()
        while inFlight < limit, !waiters.isEmpty {
            inFlight += 1
            clock.callerDidUnblock()
            granted.resumed.append(waiters.removeFirst())
        }
        return granted
    }

    /// Removes every waiter, to be failed.
    mutating func takeAllWaiters(clock: any FetchClock) -> [PlaceWaiter] {
        defer { waiters.removeAll() }
        for _ in waiters { clock.callerDidUnblock() }
        return waiters
    }
}
