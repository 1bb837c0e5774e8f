import Foundation

/// When a request is worth another try, how many tries there are, and how long to back off when the server
/// does not say: the one rule the polite fetcher and resumable downloads share.
///
/// Only GET and HEAD are retried automatically, on 408, 429, 5xx and on connection errors or timeouts (a
/// refused redirect, a loop, an oversized body, a bad URL or proxy setting would fail the same way again).
/// Without `Retry-After` the wait before retry n is drawn from [0, min(backoffCap, backoffBase × 2^(n-1))]
/// (exponential backoff with full jitter).
public struct RetryPolicy: Sendable, Hashable {
    /// The most times one GET or HEAD is sent (the first try included). Values below 1 count as 1.
    public var maxAttempts: Int
    /// The first backoff ceiling.
    public var backoffBase: Duration
    /// The largest backoff ceiling.
    public var backoffCap: Duration

    /// Creates a policy (defaults: 5 attempts, backoff from 2 s up to 120 s).
    public init(maxAttempts: Int = 5, backoffBase: Duration = .seconds(2), backoffCap: Duration = .seconds(120)) {
        self.maxAttempts = maxAttempts
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
    }

    /// Whether an answer with `status` may be different next time: 408, 429 and 5xx.
    public static func isRetriable(status: Int) -> Bool {
        status == 408 || status == 429 || (500...599).contains(status)
    }

    /// Whether a request with `method` may be sent again automatically: GET and HEAD, which change nothing.
    public static func isRetriable(method: String) -> Bool {
        let method = method.uppercased()
        return method == "GET" || method == "HEAD"
    }

    /// Whether `error` may go away on another attempt: anything but the transport's verdicts that depend on
    /// the answer itself (a refused redirect, a loop, an oversized body, a bad URL or proxy setting).
    public static func isConnectionError(_ error: any Error) -> Bool {
        guard let error = error as? HTTPTransportError else { return true }
        switch error {
        case .connectionFailed, .couldNotConnect, .timedOut, .connectTimedOut: return true
        case .invalidURL, .unsupportedScheme, .tooManyRedirects, .redirectLoop, .bodyTooLarge, .proxyFailed, .nameNotResolved,
             .reservedDestination:
            return false
        }
    }

    /// Whether `error` says the host could not be reached at all: its name does not resolve, it refused the
    /// connection (or there is no route to it), or no connection was made within the connect timeout. Nothing
    /// reached a server, so nothing was asked of it; a fetcher that gives up on unreachable hosts
    /// (`PolitenessPolicy.givesUpOnUnreachableHosts`) takes such a host for down.
    public static func isUnreachable(_ error: any Error) -> Bool {
        guard let error = error as? HTTPTransportError else { return false }
        switch error {
        case .couldNotConnect, .connectTimedOut, .nameNotResolved: return true
        case .connectionFailed, .timedOut, .invalidURL, .unsupportedScheme, .tooManyRedirects, .redirectLoop, .bodyTooLarge,
             .proxyFailed, .reservedDestination:
            return false
        }
    }

    /// How many times a request with `method` may be sent.
    public func attempts(for method: String) -> Int {
        Self.isRetriable(method: method) ? max(1, maxAttempts) : 1
    }

    /// The backoff ceiling after attempt `attempt` (from 1) failed: min(cap, base × 2^(attempt-1)).
    public func backoffCeiling(after attempt: Int) -> Duration {
        let exponent = Double(min(max(0, attempt - 1), 60))
        return .seconds(max(0, min(backoffCap.inSeconds, backoffBase.inSeconds * pow(2, exponent))))
    }
}

/// What the retry seam makes of an attempt.
enum RetryDecision {
    /// Hand the response back (a success, or a status not worth retrying).
    case deliver(HTTPResponse)
    /// Throw: the request may not be retried, or was cancelled.
    case fail(any Error)
    /// Try again, for `reason`; after a backoff drawn from [0, ceiling] when the server named no wait.
    case retry(FetchEvent.RetryReason, backoffCeiling: Duration?)
    /// Retriable, but the attempts ran out.
    case exhausted(FetchError)
}

extension RetryPolicy {
    /// The decision after attempt number `attempt` of a request to `url` came to `outcome`; a request that is
    /// not `retriable` (another method, or a stream, which its caller resumes) is never tried again.
    func decide(_ outcome: AttemptOutcome, attempt: Int, retriable: Bool, url: String) -> RetryDecision {
        let worthRetrying = retriable && (outcome.connectionError || outcome.retriableStatus)
        guard worthRetrying else {
            if let response = outcome.response { return .deliver(response) }
            return .fail(outcome.error ?? CancellationError())
        }
        if attempt >= max(1, maxAttempts) {
            return .exhausted(.gaveUp(
                url: url, attempts: attempt, lastStatus: outcome.status, lastError: outcome.error.map { "\($0)" }))
        }
        if let status = outcome.status, let retryAfter = outcome.retryAfter {
            return .retry(.retryAfter(status: status, delay: retryAfter), backoffCeiling: nil)
        }
        let reason: FetchEvent.RetryReason = outcome.status.map { .status($0) }
            ?? .transportError(outcome.error.map { "\($0)" } ?? "no response")
        return .retry(reason, backoffCeiling: backoffCeiling(after: attempt))
    }
}
