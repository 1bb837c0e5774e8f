/// A caller waiting for a place among a host's requests in flight.
struct PlaceWaiter: Sendable {
    var id: Int
    var continuation: CheckedContinuation<Void, any Error>
}

/// Waiters taken off a host's queue under the pacer's lock, to be resumed once every seam has recorded the
/// outcome (so a caller given a place sees an opened breaker or a deferral).
struct PlaceHandoff {
    /// Given a place.
    var resumed: [PlaceWaiter] = []
    /// Refused, with the error to throw.
    var failed: [(waiter: PlaceWaiter, error: FetchError)] = []

    static func += (handoff: inout PlaceHandoff, other: PlaceHandoff) {
        handoff.resumed += other.resumed
        handoff.failed += other.failed
    }

    /// Resumes every waiter.
    func perform() {
        for waiter in resumed { waiter.continuation.resume() }
        for (waiter, error) in failed { waiter.continuation.resume(throwing: error) }
    }
}
