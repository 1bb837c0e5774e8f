import BookRuleDocument
import BookRuleLocking
import Foundation

/// The polite fetcher's shared-ledger seam: with a `HostTurnLedger`, a caller that has its turn at a host in
/// this process also claims the host's turn there (waiting while another process holds it or until the
/// host's shared next start time), and records the outcome there when the response ends, so a `Retry-After`
/// deadline or an open breaker reaches other runs and the next one.
///
/// A ledger that fails (a corrupt, locked or unwritable file) is reported once through `failed` and then left
/// alone: pacing goes on in memory, never stops.
final class SharedHostTurns: Sendable {
    /// The ledger while it works; nil without one or after it failed.
    private let ledger: Locked<(any HostTurnLedger)?>
    private let failed: (@Sendable (any Error) -> Void)?
    /// Tells this fetcher's turns apart from other processes' in the ledger.
    private let tokenPrefix: String
    private let clock: any FetchClock
    private let retryAfterCap: Duration
    private let waits: (@Sendable (FetchWait) -> Void)?

    init(
        ledger: (any HostTurnLedger)?, failed: (@Sendable (any Error) -> Void)?, tokenPrefix: String,
        clock: any FetchClock, retryAfterCap: Duration, waits: (@Sendable (FetchWait) -> Void)?
    ) {
        self.ledger = Locked(ledger)
        self.failed = failed
        self.tokenPrefix = tokenPrefix
        self.clock = clock
        self.retryAfterCap = retryAfterCap
        self.waits = waits
    }

    /// Claims the host's turn for the request `id` (already this process's turn). Returns whether it was
    /// claimed (and must be released); without a working ledger, false at once. Throws
    /// `FetchError.hostDeferred` or `.breakerOpen` when the ledger says so, and `CancellationError`.
    func claim(_ id: Int, at origin: URLOrigin, serial: Bool) async throws -> Bool {
        let key = origin.description
        while let ledger = current() {
            let claim: HostTurnClaim
            do {
                claim = try ledger.claim(
                    host: key, token: token(id), serial: serial, now: clock.wallClock, retryAfterCap: retryAfterCap)
            } catch {
                disable(after: error)
                return false
            }
            switch claim {
            case .granted:
                return true
            case .wait(let until):
                // Rounded up to the millisecond: Unix time as a Double is exact to about 0.2 µs only, and the
                // gap must never come out a hair short.
                let seconds = max(0, min(until.timeIntervalSince(clock.wallClock), 1e9))
                let duration = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
                let wait = FetchWait(request: id, origin: origin, phase: .started, duration: duration, reason: .otherRun)
                waits?(wait)
                defer { waits?(wait.ended()) }
                try await clock.sleep(until: clock.now + duration)
            case .deferred(let until):
                let retryAfter = Duration.seconds(max(0, min(until.timeIntervalSince(clock.wallClock), 1e9)))
                throw FetchError.hostDeferred(host: key, until: until, retryAfter: retryAfter)
            case .breakerOpen(let failures, _):
                throw FetchError.breakerOpen(host: key, failures: failures)
            }
        }
        return false
    }

    /// Records `outcome` for the request `id` and gives its shared turn up.
    func release(_ id: Int, at key: String, outcome: HostTurnOutcome) {
        guard let ledger = current() else { return }
        do {
            try ledger.release(host: key, token: token(id), outcome: outcome)
        } catch {
            disable(after: error)
        }
    }

    /// Closes the shared breaker of `key`.
    func resetBreaker(at key: String) {
        guard let ledger = current() else { return }
        do {
            try ledger.resetBreaker(host: key)
        } catch {
            disable(after: error)
        }
    }

    private func token(_ id: Int) -> String { "\(tokenPrefix)-\(id)" }

    private func current() -> (any HostTurnLedger)? {
        ledger.withLock { $0 }
    }

    /// Stops using the ledger after `error` and reports it, once.
    private func disable(after error: any Error) {
        let wasInUse = ledger.withLock { ledger -> Bool in
            defer { ledger = nil }
            return ledger != nil
        }
        if wasInUse { failed?(error) }
    }
}
