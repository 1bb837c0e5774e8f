import Foundation
import BookRuleDocument

/// One request the polite fetcher sent, reported to the app (a CLI prints these with `--verbose`).
public struct FetchEvent: Sendable, Hashable, CustomStringConvertible {
    /// Why an attempt was a retry of the one before it.
    public enum RetryReason: Sendable, Hashable, CustomStringConvertible {
        /// The previous attempt got this status (408, 429 or 5xx) without a usable `Retry-After`; the retry
        /// waited an exponential backoff.
        case status(Int)
        /// The previous attempt got this status with `Retry-After`, which asked for `delay`.
        case retryAfter(status: Int, delay: Duration)
        /// The previous attempt failed in the transport (connection refused, reset, timed out…).
        case transportError(String)

        /// A short explanation, e.g. `HTTP 503 with Retry-After 3 s`.
        public var description: String {
            switch self {
            case .status(let status): return "HTTP \(status), backing off"
            case .retryAfter(let status, let delay): return "HTTP \(status) with Retry-After \(delay.readable)"
            case .transportError(let message): return "error: \(message)"
            }
        }
    }

    /// Wall-clock time the request started.
    public var time: Date
    /// The server asked: scheme, host and port.
    public var origin: URLOrigin
    /// The host's key, `scheme://host:port` (the origin written out).
    public var host: String { origin.description }
    /// The request method.
    public var method: String
    /// The URL requested.
    public var url: String
    /// Which try this was, from 1.
    public var attempt: Int
    /// The status received, or nil when no response head arrived (a stream that failed mid-body has both a
    /// status and an error).
    public var status: Int?
    /// The size of the response body in bytes (0 when there was none; for a stream that failed, what arrived).
    public var bytes: Int
    /// How long the request waited for its turn at the host (pacing, backoff, other requests).
    public var wait: Duration
    /// How long the transport took to answer.
    public var duration: Duration
    /// Why this attempt was a retry; nil on a first attempt.
    public var retryReason: RetryReason?
    /// The transport's error, when there was no complete response.
    public var error: String?
    /// The User-Agent sent.
    public var userAgent: String

    /// Creates an event.
    public init(
        time: Date, origin: URLOrigin, method: String, url: String, attempt: Int, status: Int?, bytes: Int,
        wait: Duration, duration: Duration, retryReason: RetryReason?, error: String?, userAgent: String
    ) {
        self.time = time
        self.origin = origin
        self.method = method
        self.url = url
        self.attempt = attempt
        self.status = status
        self.bytes = bytes
        self.wait = wait
        self.duration = duration
        self.retryReason = retryReason
        self.error = error
        self.userAgent = userAgent
    }

    /// One line: `2026-11-05 12:00:03 UTC GET https://… -> 200, 5120 B, waited 0.5 s, took 0.12 s`, plus the
    /// attempt and its reason on a retry.
    public var description: String {
        var result = status.map { "\($0)" } ?? "failed (\(error ?? "no response"))"
        // A stream that got its head and then dropped: the status, and that it failed.
        if let status, let error { result = "\(status), then failed (\(error))" }
        var line = "\(DateCodec.utcTimestamp(time)) \(method) \(url) -> \(result), \(bytes) B, "
            + "waited \(wait.readable), took \(duration.readable)"
        if let retryReason {
            line += " [attempt \(attempt), retry after \(retryReason)]"
        }
        return line
    }
}
