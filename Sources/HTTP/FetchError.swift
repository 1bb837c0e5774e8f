import Foundation

/// Why the polite fetcher did not deliver a response.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host asked (with `Retry-After`) for a pause longer than the policy's cap. No request goes to it
    /// before `until`; its work is deferred so the run can save progress and report instead of sleeping.
    case hostDeferred(host: String, until: Date, retryAfter: Duration)
    /// The host failed `failures` times in a row, so its breaker is open: nothing more is sent to it in this run.
    case breakerOpen(host: String, failures: Int)
    /// The host could not be reached when first asked in this run (refused, no route, no connection within the
    /// connect timeout, a name that does not resolve: `reason`), and the fetcher gives up on unreachable hosts
    /// (`PolitenessPolicy.givesUpOnUnreachableHosts`): nothing more is sent to it in this run.
    case hostDown(host: String, reason: String)
    /// A GET or HEAD still failed after `attempts` tries; the last try got HTTP `lastStatus` or the transport
    /// error `lastError`.
    case gaveUp(url: String, attempts: Int, lastStatus: Int?, lastError: String?)
    /// The URL is not an absolute http or https URL with a host, so it has no host to be polite to.
    case invalidURL(String)

    /// What happened and what the user can do about it.
    public var description: String {
        switch self {
        case .hostDeferred(let host, let until, let retryAfter):
            return "\(host) asked bookrule to wait \(retryAfter.readable) (Retry-After), longer than the cap; "
                + "its remaining work is deferred: run again after \(DateCodec.utcTimestamp(until)) "
                + "(or raise the Retry-After cap)"
        case .breakerOpen(let host, let failures):
            return "\(host) failed \(failures) times in a row, so bookrule stopped sending it requests for this "
                + "run; what was saved is kept: check the site in a browser and run again later"
        case .hostDown(let host, let reason):
            return "\(host) is down for this run: it could not be reached when first asked (\(reason)); "
                + "nothing more is sent to it until the next run"
        case .gaveUp(let url, let attempts, let lastStatus, let lastError):
            let last: String
            if let lastStatus {
                last = "the last answer was HTTP \(lastStatus)"
            } else if let lastError {
                last = "the last error was: \(lastError)"
            } else {
                last = "no answer"
            }
            let tries = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
            return "gave up on \(url) after \(tries); \(last) (the site may be down or overloaded: try again later)"
        case .invalidURL(let url):
            return "refusing to fetch \"\(url)\": only absolute http and https URLs with a host are fetched"
        }
    }
}
