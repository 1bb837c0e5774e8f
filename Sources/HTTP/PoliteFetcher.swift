import Foundation
import BookRuleDocument

/// The one transport every request of a run goes through: it paces each host, backs off when a host is
/// struggling, retries what is safe to retry, stops hammering a host that keeps failing, and sends a browser
/// User-Agent. The engine uses it like any other `HTTPTransport`.
///
/// Hosts are keyed by `scheme://host:port` and are independent: a slow or backing-off host never delays another.
/// Each attempt passes through the seams in one declared order (docs/architecture.md, "The polite fetcher"),
/// outermost first on the way out and innermost first on the way back:
///
/// 1. retry (`RetryPolicy`): GET and HEAD are tried again on 408, 429, 5xx and connection errors, at most
///    `policy.maxAttempts` times, after the server's `Retry-After` or an exponential backoff with full jitter;
///    then `FetchError.gaveUp`. Other statuses (404, 403, 410…) are returned after one try; other methods and
///    streams are never retried.
/// 2. breaker (`HostBreaker`): after `policy.breakerThreshold` failures in a row, every request to the host
///    throws `FetchError.breakerOpen`. With `policy.givesUpOnUnreachableHosts`, a host that has not answered in
///    this run and cannot be reached gets one attempt and then throws `FetchError.hostDown` for the rest of the
///    run (its waiting callers at once).
/// 3. pacing (`HostPacer`): by default one request in flight per host, starting no sooner than `policy.delay`
///    after the previous response ended (`policy.failureDelay` after a failure without `Retry-After`, halving
///    back down per success; jitter draws the gap from [d, 1.5 d]); a source's `concurrentRate` replaces it.
///    A `Retry-After` pauses the whole host for what the server asked (never less than the host delay); one
///    longer than `policy.retryAfterCap` throws `FetchError.hostDeferred` at once, and for every later
///    request to the host until that time.
/// 4. shared turns (`SharedHostTurns`): with a `HostTurnLedger`, the same pacing holds across processes; a
///    ledger that fails is reported once through `ledgerFailed` and then left alone.
/// 5. User-Agent (`HostUserAgents`): the host's browser User-Agent unless the request names one.
///
/// Cancelling the calling task ends any wait at once and frees its turn. `events` hears of every request sent,
/// `waits` of every wait as it starts and ends.
public final class PoliteFetcher: HTTPTransport {
    /// The rules applied to every host.
    public let policy: PolitenessPolicy

    private let transport: any HTTPTransport
    private let clock: any FetchClock
    private let random: FetchRandom
    private let events: (@Sendable (FetchEvent) -> Void)?
    private let retry: RetryPolicy
    private let breaker: HostBreaker
    private let pacer: HostPacer
    private let shared: SharedHostTurns
    private let userAgents: HostUserAgents

    /// Wraps `transport`. `clock` provides time (a virtual one in tests), `random` the jitter, backoff and
    /// User-Agent choices (pass a `SeededRandomNumberGenerator` for reproducible runs), and `events`, if given,
    /// is called once per request sent, from the task that sent it; `waits`, if given, when a request starts
    /// and stops waiting for its host. `ledger`, if given, shares each host's turn with other processes;
    /// `ledgerFailed` is called once, with the error, if the ledger stops working.
    public init(
        transport: any HTTPTransport,
        policy: PolitenessPolicy = .default,
        clock: any FetchClock = SystemFetchClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        ledger: (any HostTurnLedger)? = nil,
        ledgerFailed: (@Sendable (any Error) -> Void)? = nil,
        events: (@Sendable (FetchEvent) -> Void)? = nil,
        waits: (@Sendable (FetchWait) -> Void)? = nil
    ) {
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.events = events
        let random = FetchRandom(random)
        self.random = random
        let tokenPrefix = String(random.next() % 1_000_000_000_000, radix: 36)
        retry = policy.retry
        breaker = HostBreaker(threshold: policy.breakerThreshold)
        pacer = HostPacer(policy: policy, clock: clock, random: random, waits: waits)
        shared = SharedHostTurns(
            ledger: ledger, failed: ledgerFailed, tokenPrefix: tokenPrefix, clock: clock,
            retryAfterCap: policy.retryAfterCap, waits: waits)
        userAgents = HostUserAgents(pool: policy.userAgents, rotation: policy.userAgentRotation, random: random)
    }

    /// Replaces the default pacing of the host of `url` with `rate` (a source's `concurrentRate`), or restores
    /// the default with nil. Backoff, Retry-After and the breaker still apply.
    public func setConcurrentRate(_ rate: ConcurrentRate?, forHostOf url: String) throws(FetchError) {
        guard let key = URLOrigin(url)?.description else { throw .invalidURL(url) }
        userAgents.register(key)
        pacer.setRate(rate, at: key).perform()
    }

    /// Closes the breaker of the host of `url` and forgets its failure count, so requests go to it again.
    public func resetBreaker(forHostOf url: String) throws(FetchError) {
        guard let key = URLOrigin(url)?.description else { throw .invalidURL(url) }
        breaker.reset(at: key)
        shared.resetBreaker(at: key)
    }

    /// Sends `request` politely (see the type's documentation) and returns the final response. Throws
    /// `FetchError` when the host is deferred, its breaker is open, retries ran out or the URL has no host;
    /// `CancellationError` when the calling task is cancelled while waiting; and the transport's own error when
    /// a request that may not be retried fails.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let origin = URLOrigin(request.url) else { throw FetchError.invalidURL(request.url) }
        let retriable = RetryPolicy.isRetriable(method: request.method)
        var retryReason: FetchEvent.RetryReason?
        var number = 0
        while true {
            number += 1
            let (decision, _) = try await attempt(
                request, at: origin, number: number, retriable: retriable, retryReason: retryReason,
                exchange: { try await self.transport.send($0) }, response: { $0 },
                report: { answer in ((try? answer.get())?.status, (try? answer.get())?.body.count ?? 0) })
            switch decision {
            case .deliver(let response): return response
            case .fail(let error): throw error
            case .retry(let reason): retryReason = reason
            }
        }
    }

    /// Streams `request` into `sink` politely: waits for the host's turn, holds it for the whole transfer (so
    /// in serial mode nothing else goes to the host meanwhile), then records the outcome for the host like
    /// `send` does (gap, failure delay, `Retry-After` on 429/503, breaker, User-Agent rotation).
    ///
    /// Unlike `send` it makes exactly one attempt: a download resumes from where the failed attempt stopped,
    /// so retrying is the downloader's decision. Throws `FetchError` when the host is deferred or its breaker
    /// is open, `CancellationError` when cancelled, and the transport's error when the transfer fails. The
    /// event of a transfer that failed mid-body carries the status and the bytes that did arrive.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        guard let origin = URLOrigin(request.url) else { throw FetchError.invalidURL(request.url) }
        let counting = CountingBodySink(sink)
        let (decision, answer) = try await attempt(
            request, at: origin, number: 1, retriable: false, retryReason: nil,
            exchange: { try await self.transport.stream($0, to: counting) },
            response: { HTTPResponse(url: $0.head.url, status: $0.head.status, headers: $0.head.headers) },
            report: { answer in
                if case .success(let result) = answer { return (result.head.status, result.bodyBytes) }
                return counting.received
            })
        if case .fail(let error) = decision { throw error }
        return try answer.get()
    }

    private enum Decision {
        case deliver(HTTPResponse)
        case fail(any Error)
        case retry(FetchEvent.RetryReason)
    }

    /// One polite attempt through the seams, in their declared order: waits for the host's turn (breaker,
    /// pacing, shared turns), performs `exchange` with the host's User-Agent, then records the outcome with
    /// each seam innermost first and reports the event. `response` reads the answer's status and headers,
    /// `report` the status and bytes for the event.
    private func attempt<Answer>(
        _ request: HTTPRequest, at origin: URLOrigin, number: Int, retriable: Bool,
        retryReason: FetchEvent.RetryReason?, exchange: (HTTPRequest) async throws -> Answer,
        response: (Answer) -> HTTPResponse, report: (Result<Answer, any Error>) -> (status: Int?, bytes: Int)
    ) async throws -> (decision: Decision, answer: Result<Answer, any Error>) {
        let key = origin.description
        let waitStart = clock.now
        userAgents.register(key)
        let id = try await pacer.takeTurn(at: origin, blocked: { [breaker] in breaker.blockingError(at: $0) })
        let claimed: Bool
        do {
            claimed = try await shared.claim(id, at: origin, serial: pacer.isSerial(at: key))
        } catch {
            if case FetchError.hostDeferred(_, let until, let retryAfter) = error {
                pacer.deferHost(at: key, until: until, retryAfter: retryAfter)
            }
            pacer.release(id, at: key).perform()
            throw error
        }
        let (outgoing, userAgent) = userAgents.apply(to: request, at: key)

        let started = clock.now
        let startedDate = clock.wallClock
        let answer: Result<Answer, any Error>
        do {
            answer = .success(try await exchange(outgoing))
        } catch {
            answer = .failure(error)
        }
        let ended = clock.now
        let wallNow = clock.wallClock
        let outcome = AttemptOutcome(answer.map(response), wallNow: wallNow)

        // A Retry-After over the cap defers the host: nothing more goes to it, so its User-Agent and breaker
        // are left as they are (the failure still counts).
        let defers = outcome.retryAfter.map { $0 > policy.retryAfterCap } ?? false
        if !defers { userAgents.record(status: outcome.status, at: key) }
        var handoff = PlaceHandoff()
        let opened = breaker.record(outcome.failed, at: key, mayOpen: !defers)
        if let opened { handoff += pacer.failWaiters(at: key, with: opened) }
        if policy.givesUpOnUnreachableHosts,
           let down = breaker.recordReach(answered: outcome.response != nil, error: outcome.error, at: key) {
            handoff += pacer.failWaiters(at: key, with: down)
        }
        let (released, deferral) = pacer.finish(id, at: key, outcome: outcome, now: ended, wallNow: wallNow)
        handoff += released
        let decision = deferral.map { Decision.fail($0) }
            ?? decide(outcome, at: key, attempt: number, retriable: retriable, url: request.url, now: ended)
        if claimed {
            let resume = pacer.nextStart(at: key, now: ended)
            shared.release(id, at: key, outcome: HostTurnOutcome(
                endedAt: wallNow, nextRequestAt: wallNow.addingTimeInterval((resume - ended).inSeconds),
                retryAfterUntil: outcome.retryAfter.map { wallNow.addingTimeInterval($0.inSeconds) },
                failed: outcome.failed, breakerThreshold: max(0, policy.breakerThreshold)))
        }
        handoff.perform()
        if let events {
            var errorText: String?
            if case .failure(let error) = answer { errorText = String(describing: error) }
            let (status, bytes) = report(answer)
            events(FetchEvent(
                time: startedDate, origin: origin, method: request.method.uppercased(), url: request.url,
                attempt: number, status: status, bytes: bytes, wait: started - waitStart, duration: ended - started,
                retryReason: retryReason, error: errorText, userAgent: userAgent))
        }
        return (decision, answer)
    }

    /// The retry seam's decision for the attempt, with the breaker's say (an open breaker ends retrying) and
    /// the backoff pause it asks of the pacer.
    private func decide(
        _ outcome: AttemptOutcome, at key: String, attempt: Int, retriable: Bool, url: String, now: Duration
    ) -> Decision {
        // A host found down gets no second attempt: this request fails with what it met.
        if policy.givesUpOnUnreachableHosts, let error = outcome.error, RetryPolicy.isUnreachable(error),
           breaker.isDown(at: key) {
            return .fail(error)
        }
        switch retry.decide(outcome, attempt: attempt, retriable: retriable, url: url) {
        case .deliver(let response):
            return .deliver(response)
        case .fail(let error):
            return .fail(error)
        case .exhausted(let error):
            return .fail(breaker.blockingError(at: key) ?? error)
        case .retry(let reason, let ceiling):
            if let error = breaker.blockingError(at: key) { return .fail(error) }
            if let ceiling { pacer.pause(at: key, until: now + ceiling.scaled(by: random.unit()), reason: .backoff) }
            return .retry(reason)
        }
    }

    /// `scheme://host:port` for an absolute http(s) URL (host lower-cased, default port filled in), or nil:
    /// the `URLOrigin` of the URL, the key of the host's queue.
    package static func hostKey(_ url: String) -> String? {
        URLOrigin(url)?.description
    }
}
