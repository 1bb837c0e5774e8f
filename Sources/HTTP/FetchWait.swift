import BookRuleDocument

/// A wait of the polite fetcher before it sends a request, reported when it starts and again when it ends, so
/// an app can show it while it happens (`waiting 4 s for example.com: Retry-After`).
public struct FetchWait: Sendable, Hashable, CustomStringConvertible {
    /// Why the request waits.
    public enum Reason: String, Sendable, Hashable, CustomStringConvertible {
        /// The server asked, with `Retry-After`, to come back later.
        case retryAfter
        /// An exponential backoff after a failure that said nothing about when to come back.
        case backoff
        /// The longer gap after a failure (`PolitenessPolicy.failureDelay`, stepping back down).
        case failureDelay
        /// The normal gap between requests, or the source's `concurrentRate`.
        case pacing
        /// Another bookrule run holds the host's turn, or set its next start (the shared host state).
        case otherRun

        /// Words for a person: `Retry-After`, `backing off after a failure`…
        public var description: String {
            switch self {
            case .retryAfter: return "Retry-After"
            case .backoff: return "backing off after a failure"
            case .failureDelay: return "slower after a failure"
            case .pacing: return "pacing"
            case .otherRun: return "another bookrule run has its turn"
            }
        }
    }

    /// Whether the wait begins or is over.
    public enum Phase: String, Sendable, Hashable {
        case started, ended
    }

    /// Tells the waits of concurrent requests apart: the same for a wait's start and its end.
    public var request: Int
    /// The host waited for.
    public var origin: URLOrigin
    /// The host's key, `scheme://host:port`.
    public var host: String { origin.description }
    public var phase: Phase
    /// How long the wait was planned to last when it started.
    public var duration: Duration
    public var reason: Reason

    /// Creates a report of a wait.
    public init(request: Int, origin: URLOrigin, phase: Phase, duration: Duration, reason: Reason) {
        self.request = request
        self.origin = origin
        self.phase = phase
        self.duration = duration
        self.reason = reason
    }

    /// The same wait, over.
    public func ended() -> FetchWait {
        var wait = self
        wait.phase = .ended
        return wait
    }

    /// `waiting 4 s for a.example: Retry-After`, or `waited … ` once it ended.
    public var description: String {
        "\(phase == .started ? "waiting" : "waited") \(duration.readable) for \(origin.authority): \(reason)"
    }
}
