import BookRuleLocking

/// The polite fetcher's breaker seam: counts each host's failures in a row and, after `threshold` of them,
/// refuses every further request to the host with `FetchError.breakerOpen` until it is reset. It also keeps
/// which hosts answered in this run and which were found down (`recordReach`), for a fetcher that gives up on
/// unreachable hosts: a host found down is refused with `FetchError.hostDown`.
final class HostBreaker: Sendable {
    private struct Host {
        var consecutiveFailures = 0
        var open = false
        /// The host answered (any status) at least once in this run.
        var answered = false
        /// Why the host was taken for down, when it was.
        var down: String?
    }

    /// Failures in a row that open the breaker; 0 or less never opens it.
    let threshold: Int
    private let hosts = Locked<[String: Host]>([:])

    init(threshold: Int) {
        self.threshold = threshold
    }

    /// The error every request to `key` gets while its breaker is open, else nil.
    func blockingError(at key: String) -> FetchError? {
        hosts.withLock { hosts in
            guard let host = hosts[key] else { return nil }
            if let down = host.down { return .hostDown(host: key, reason: down) }
            guard host.open else { return nil }
            return .breakerOpen(host: key, failures: host.consecutiveFailures)
        }
    }

    /// Whether `key` was found down in this run.
    func isDown(at key: String) -> Bool {
        hosts.withLock { $0[key]?.down != nil }
    }

    /// Notes what an attempt at `key` says about reaching the host: an answer (any status) marks it as
    /// answering for the rest of the run; an unreachable error (`RetryPolicy.isUnreachable`) from a host that
    /// has not answered marks it down. Returns the error to fail the host's waiting callers with when this
    /// attempt found it down, else nil.
    func recordReach(answered: Bool, error: (any Error)?, at key: String) -> FetchError? {
        hosts.withLock { hosts in
            var host = hosts[key, default: Host()]
            defer { hosts[key] = host }
            if answered {
                host.answered = true
                return nil
            }
            guard let error, RetryPolicy.isUnreachable(error), !host.answered, host.down == nil else { return nil }
            let reason = Self.reason(error)
            host.down = reason
            return .hostDown(host: key, reason: reason)
        }
    }

    /// A short reason for an unreachable error, without the advice of its full description.
    static func reason(_ error: any Error) -> String {
        switch error as? HTTPTransportError {
        case .couldNotConnect(_, let message)?: return message
        case .connectTimedOut(_, let seconds)?: return "no connection within \(Duration.seconds(seconds).readable)"
        case .nameNotResolved(_, let host)?: return "the name \(host) does not resolve"
        default: return "\(error)"
        }
    }

    /// Counts an attempt's outcome for `key` (`failed` nil counts nothing) and returns the error to fail the
    /// host's waiting callers with when this failure opened the breaker. Without `mayOpen` (the host is
    /// deferred anyway) the failure is counted but the breaker stays closed.
    func record(_ failed: Bool?, at key: String, mayOpen: Bool = true) -> FetchError? {
        guard let failed else { return nil }
        return hosts.withLock { hosts in
            var host = hosts[key, default: Host()]
            defer { hosts[key] = host }
            guard failed else {
                host.consecutiveFailures = 0
                return nil
            }
            host.consecutiveFailures += 1
            guard mayOpen, threshold > 0, host.consecutiveFailures >= threshold, !host.open else { return nil }
            host.open = true
            return .breakerOpen(host: key, failures: host.consecutiveFailures)
        }
    }

    /// Closes the breaker of `key` and forgets its failures.
    func reset(at key: String) {
        hosts.withLock { $0[key] = nil }
    }
}
