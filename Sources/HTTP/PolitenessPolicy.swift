/// How politely the fetcher treats each host: pacing, retries, backoff, the breaker and User-Agents.
///
/// The defaults are those of the app bookrule grew out of; they are tuned so that reading a whole book never
/// looks like an attack.
public struct PolitenessPolicy: Sendable, Hashable {
    /// The least time from the end of one response to the start of the next request to the same host, after
    /// a success. Default 0.5 s.
    public var delay: Duration
    /// The same gap after a failure that does not say when to come back (a connection error, 403, or a 408,
    /// 429 or 5xx without `Retry-After`). Default 5 s. After the host recovers, the gap steps back down towards
    /// `delay`, halving the difference with each success. A `Retry-After` replaces it with the server's wait.
    public var failureDelay: Duration
    /// Whether gaps are drawn from [d, 1.5 d] instead of being exactly d. Jitter only ever adds. Default on.
    public var jitter: Bool
    /// The most times one GET or HEAD is sent (the first try included). Default 5; values below 1 count as 1.
    public var maxAttempts: Int
    /// The longest `Retry-After` the fetcher waits out. A longer one defers the host's work with
    /// `FetchError.hostDeferred` instead of sleeping. Default 300 s.
    public var retryAfterCap: Duration
    /// The first ceiling of the exponential backoff used when a failure carries no usable `Retry-After`; the
    /// wait before retry n is drawn from [0, min(backoffCap, backoffBase * 2^(n-1))] and is never shorter than
    /// the host's current delay. Default 2 s.
    public var backoffBase: Duration
    /// The largest backoff ceiling. Default 120 s.
    public var backoffCap: Duration
    /// Consecutive failures after which a host's breaker opens and every later request to it fails at once
    /// with `FetchError.breakerOpen`. Default 10; 0 or less disables the breaker.
    public var breakerThreshold: Int
    /// Whether a host that cannot be reached is given up on for the rest of the run (default off). When on, a
    /// host that has not answered in this run and cannot be reached (`RetryPolicy.isUnreachable`: it refuses
    /// connections, has no route, makes no connection within the connect timeout, or its name does not
    /// resolve) gets that one attempt, no retry and no backoff, and is remembered as down: every later request
    /// to it, and every one waiting for its turn, throws `FetchError.hostDown` at once, so it never holds back
    /// the other hosts. A host that has answered keeps the usual retries (a passing fault is waited out), and
    /// 408, 429 and 5xx with or without `Retry-After` are treated as always. For runs over many sources, where
    /// a dead one is common (`search --sources`, `fetch --sources`).
    public var givesUpOnUnreachableHosts: Bool
    /// When the User-Agent changes. Default `.session`.
    public var userAgentRotation: UserAgentPool.Rotation
    /// The User-Agents to send when a request has none of its own. Default `UserAgentPool.currentBrowsers`.
    public var userAgents: UserAgentPool

    /// Creates a policy; every parameter defaults to the value documented on its property.
    public init(
        delay: Duration = .milliseconds(500),
        failureDelay: Duration = .seconds(5),
        jitter: Bool = true,
        maxAttempts: Int = 5,
        retryAfterCap: Duration = .seconds(300),
        backoffBase: Duration = .seconds(2),
        backoffCap: Duration = .seconds(120),
        breakerThreshold: Int = 10,
        givesUpOnUnreachableHosts: Bool = false,
        userAgentRotation: UserAgentPool.Rotation = .session,
        userAgents: UserAgentPool = .currentBrowsers
    ) {
        self.delay = delay
        self.failureDelay = failureDelay
        self.jitter = jitter
        self.maxAttempts = maxAttempts
        self.retryAfterCap = retryAfterCap
        self.backoffBase = backoffBase
        self.backoffCap = backoffCap
        self.breakerThreshold = breakerThreshold
        self.givesUpOnUnreachableHosts = givesUpOnUnreachableHosts
        self.userAgentRotation = userAgentRotation
        self.userAgents = userAgents
    }

    /// The retry rule these settings make (`maxAttempts`, `backoffBase`, `backoffCap`), shared with resumable
    /// downloads.
    public var retry: RetryPolicy {
        get { RetryPolicy(maxAttempts: maxAttempts, backoffBase: backoffBase, backoffCap: backoffCap) }
        set {
            maxAttempts = newValue.maxAttempts
            backoffBase = newValue.backoffBase
            backoffCap = newValue.backoffCap
        }
    }

    /// The defaults: 0.5 s / 5 s gaps with jitter, 5 attempts, Retry-After capped at 300 s, backoff 2 s to
    /// 120 s, a breaker after 10 failures in a row, one browser UA per host session.
    public static let `default` = PolitenessPolicy()
}
