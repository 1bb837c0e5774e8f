import BookRuleLocking

/// The polite fetcher's breaker seam: counts each host's failures in a row and, after `threshold` of them,
/// refuses every further request to the host with `FetchError.breakerOpen` until it is reset.
final class HostBreaker: Sendable {
    private struct Host {
        var consecutiveFailures = 0
        var open = false
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
            guard let host = hosts[key], host.open else { return nil }
            return .breakerOpen(host: key, failures: host.consecutiveFailures)
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
