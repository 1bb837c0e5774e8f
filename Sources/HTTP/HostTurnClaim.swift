import Foundation

/// The ledger's answer to `HostTurnLedger.claim`.
public enum HostTurnClaim: Sendable, Equatable {
    /// The turn is the caller's: send now (and `release` after).
    case granted
    /// Not yet: another process holds the turn or the host's next start time is later. Ask again at `until`.
    case wait(until: Date)
    /// The host asked, with `Retry-After`, not to be contacted before `until`, later than the cap allows.
    case deferred(until: Date)
    /// The host failed `failures` times in a row (counted over every process); no request before `until`.
    case breakerOpen(failures: Int, until: Date)
}
