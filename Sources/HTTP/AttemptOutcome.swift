import Foundation

/// What one attempt through the polite fetcher came to, classified once for every seam: the response or the
/// error, whether it counts against the host, and the wait a `Retry-After` asked for.
struct AttemptOutcome {
    /// The final response (for a stream: its head, no body).
    var response: HTTPResponse?
    /// The transport's error, when there was no response.
    var error: (any Error)?
    /// The caller was cancelled: nothing is counted either way.
    var cancelled: Bool
    /// 408, 429 or 5xx.
    var retriableStatus: Bool
    /// A connection that failed or timed out, which may work next time.
    var connectionError: Bool
    /// What a `Retry-After` on a retriable status asked for (a past date is zero).
    var retryAfter: Duration?

    var status: Int? { response?.status }

    /// Whether the attempt counts as a failure of the host: a connection error, a retriable status or a 403;
    /// nil when cancelled (not counted either way). A refused redirect, a loop or an oversized body would fail
    /// the same way again, so they are not held against the host.
    var failed: Bool? {
        if cancelled { return nil }
        return connectionError || retriableStatus || status == 403
    }

    /// Classifies `result`, read at `wallNow` (for `Retry-After` dates).
    init(_ result: Result<HTTPResponse, any Error>, wallNow: Date) {
        switch result {
        case .success(let response):
            self.response = response
            cancelled = false
            retriableStatus = RetryPolicy.isRetriable(status: response.status)
            connectionError = false
            if retriableStatus, let value = response.headers.value(for: "Retry-After") {
                retryAfter = RetryAfter.delay(value, now: wallNow)
            }
        case .failure(let error):
            self.error = error
            cancelled = error is CancellationError || Task.isCancelled
            retriableStatus = false
            connectionError = !cancelled && RetryPolicy.isConnectionError(error)
        }
    }
}
