import Foundation

/// Per-host politeness state shared with other processes (other bookrule runs on the same machine), consulted
/// by `PoliteFetcher` when it takes a host's turn and written when the request ends.
///
/// The fetcher paces its own requests in memory; the ledger extends that to every process that uses the same
/// ledger, so two runs against one host together keep each gap ≥ the delay, and a `Retry-After` or an open
/// breaker recorded by one run holds for the next. Times are wall-clock dates (absolute Unix time), because
/// processes share no monotonic clock.
///
/// Implementations block the calling thread briefly (a file lock, bounded by their own timeout) and throw when
/// the shared state cannot be used; the fetcher then reports the error once and goes on pacing in memory only.
public protocol HostTurnLedger: Sendable {
    /// Asks for the turn of `host` (`scheme://host:port`) at `now` for the request identified by `token`.
    /// With `serial` (the host runs one request at a time) the ledger grants the turn only when no other
    /// process holds it and the host's next start time has come, and then records `token` as holding it until
    /// `release`; without `serial` (a source's `concurrentRate` paces the host) only the `Retry-After` deadline
    /// and the breaker are checked. A `Retry-After` deadline later than `now + retryAfterCap` is answered with
    /// `.deferred`.
    ///
    /// `now` is read once the ledger holds its lock, not before: a time read while another process was taking
    /// the turn would be older than that process's, and its turn would look held for longer than any run
    /// writes (the check for a bogus holder), so it would be taken over while in use.
    func claim(
        host: String, token: String, serial: Bool, now: @autoclosure () -> Date, retryAfterCap: Duration
    ) throws -> HostTurnClaim

    /// Records the end of a request with what the fetcher decided about the host, and gives the turn up when
    /// `token` holds it (a request of a host without `serial` holds none: then the host's next start time is
    /// left as it was, and only the `Retry-After` deadline and the failure count are recorded).
    func release(host: String, token: String, outcome: HostTurnOutcome) throws

    /// Closes the shared breaker of `host` and forgets its failures.
    func resetBreaker(host: String) throws
}
