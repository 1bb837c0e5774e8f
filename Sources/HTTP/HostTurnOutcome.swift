import Foundation

/// What the fetcher decided about a host when a request ended, for `HostTurnLedger.release`.
public struct HostTurnOutcome: Sendable, Equatable {
    /// When the response ended (the shared breaker's cool-down counts from here).
    public var endedAt: Date
    /// No request to the host starts before this (the end of the response plus the gap, or a pause).
    public var nextRequestAt: Date
    /// When the response carried a `Retry-After`: the date it names (the host is paused until then).
    public var retryAfterUntil: Date?
    /// Whether the request counts as a failure of the host (nil: not counted either way, e.g. cancelled).
    public var failed: Bool?
    /// Failures in a row, over every process, after which the shared breaker opens (0: never).
    public var breakerThreshold: Int

    /// Creates an outcome; see the properties.
    public init(endedAt: Date, nextRequestAt: Date, retryAfterUntil: Date?, failed: Bool?, breakerThreshold: Int) {
        self.endedAt = endedAt
        self.nextRequestAt = nextRequestAt
        self.retryAfterUntil = retryAfterUntil
        self.failed = failed
        self.breakerThreshold = breakerThreshold
    }
}
