import BookRuleLocking
import Foundation
import BookRuleDocument

/// The one transport every request of a run goes through: it paces each host, backs off when a host is
/// struggling, retries what is safe to retry, stops hammering a host that keeps failing, and sends a browser
/// User-Agent. The engine uses it like any other `HTTPTransport`.
///
/// Hosts are keyed by `scheme://host:port` and are independent: a slow or backing-off host never delays another.
/// For each host:
/// - By default one request is in flight at a time, and the next one starts no sooner than `policy.delay`
///   after the previous response ended (`policy.failureDelay` after a failure that carries no `Retry-After`;
///   with jitter the gap is drawn from [d, 1.5 d]). After such failures stop, the gap steps back down, halving
///   the extra delay per success. `setConcurrentRate(_:forHostOf:)` replaces this pacing with a source's
///   `concurrentRate`.
/// - `Retry-After` on a 408, 429 or 5xx pauses the whole host for exactly what the server asked (never less
///   than the host delay, plus jitter of up to half of it) and does not raise the host's delay: the next
///   success is followed by the normal gap. One longer than `policy.retryAfterCap` throws
///   `FetchError.hostDeferred` at once (and for every later request to the host until that time).
/// - GET and HEAD are retried on 408, 429, 5xx and transport errors, at most `policy.maxAttempts` tries, with
///   exponential backoff and full jitter when there is no `Retry-After`; then `FetchError.gaveUp`. Other
///   statuses (404, 403, 410…) are returned after one try; other methods are never retried.
/// - After `policy.breakerThreshold` failures in a row, every request to the host throws
///   `FetchError.breakerOpen`.
///
/// A waiting request reserves its turn before it sleeps, so concurrent callers never share a slot; cancelling
/// the calling task ends its wait at once and frees its turn.
///
/// With a `HostTurnLedger`, the same holds across processes: once a caller has its turn here, it also claims
/// the host's turn in the ledger (waiting while another process holds it or until the host's shared next start
/// time), and records the outcome there when the response ends, so a `Retry-After` deadline or an open breaker
/// reaches other runs and the next one. A ledger that fails (a corrupt, locked or unwritable file) is reported
/// once through `ledgerFailed` and then left alone: pacing goes on in memory, never stops.
public final class PoliteFetcher: HTTPTransport {
    /// The rules applied to every host.
    public let policy: PolitenessPolicy

    private let transport: any HTTPTransport
    private let clock: any FetchClock
    private let events: (@Sendable (FetchEvent) -> Void)?
    private let state: Locked<State>
    /// The shared ledger while it works; nil without one or after it failed.
    private let ledger: Locked<(any HostTurnLedger)?>
    private let ledgerFailed: (@Sendable (any Error) -> Void)?
    /// Tells this fetcher's turns apart from other processes' in the ledger.
    private let ledgerTokenPrefix: String

    /// Wraps `transport`. `clock` provides time (a virtual one in tests), `random` the jitter, backoff and
    /// User-Agent choices (pass a `SeededRandomNumberGenerator` for reproducible runs), and `events`, if given,
    /// is called once per request sent, from the task that sent it. `ledger`, if given, shares each host's
    /// turn with other processes; `ledgerFailed` is called once, with the error, if the ledger stops working.
    public init(
        transport: any HTTPTransport,
        policy: PolitenessPolicy = .default,
        clock: any FetchClock = SystemFetchClock(),
        random: any RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
        ledger: (any HostTurnLedger)? = nil,
        ledgerFailed: (@Sendable (any Error) -> Void)? = nil,
        events: (@Sendable (FetchEvent) -> Void)? = nil
    ) {
        self.transport = transport
        self.policy = policy
        self.clock = clock
        self.events = events
        var random = random
        ledgerTokenPrefix = String(random.next() % 1_000_000_000_000, radix: 36)
        self.state = Locked(State(random: random))
        self.ledger = Locked(ledger)
        self.ledgerFailed = ledgerFailed
    }

    /// Whether `error` may go away on another attempt: anything but the transport's verdicts that depend on
    /// the answer itself (a refused redirect, a loop, an oversized body, a bad URL or proxy setting).
    package static func isConnectionError(_ error: any Error) -> Bool {
        guard let error = error as? HTTPTransportError else { return true }
        switch error {
        case .connectionFailed, .timedOut: return true
        case .invalidURL, .unsupportedScheme, .tooManyRedirects, .redirectLoop, .bodyTooLarge, .proxyFailed, .nameNotResolved:
            return false
        }
    }

    /// Replaces the default pacing of the host of `url` with `rate` (a source's `concurrentRate`), or restores
    /// the default with nil. Backoff, Retry-After and the breaker still apply.
    public func setConcurrentRate(_ rate: ConcurrentRate?, forHostOf url: String) throws(FetchError) {
        guard let key = URLOrigin(url)?.description else { throw .invalidURL(url) }
        let granted = state.withLock { state -> [Waiter] in
            state.ensureHost(key, poolSize: policy.userAgents.agents.count)
            state.hosts[key, default: HostState()].rate = rate
            return state.hosts[key, default: HostState()].grantWaiters(clock: clock)
        }
        for waiter in granted { waiter.continuation.resume() }
    }

    /// Closes the breaker of the host of `url` and forgets its failure count, so requests go to it again.
    public func resetBreaker(forHostOf url: String) throws(FetchError) {
        guard let key = URLOrigin(url)?.description else { throw .invalidURL(url) }
        state.withLock { state in
            state.hosts[key]?.breakerOpen = false
            state.hosts[key]?.consecutiveFailures = 0
        }
        if let ledger = currentLedger() {
            do {
                try ledger.resetBreaker(host: key)
            } catch {
                disableLedger(after: error)
            }
        }
    }

    /// Sends `request` politely (see the type's documentation) and returns the final response. Throws
    /// `FetchError` when the host is deferred, its breaker is open, retries ran out or the URL has no host;
    /// `CancellationError` when the calling task is cancelled while waiting; and the transport's own error when
    /// a request that may not be retried fails.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let origin = URLOrigin(request.url) else { throw FetchError.invalidURL(request.url) }
        let method = request.method.uppercased()
        let retriable = method == "GET" || method == "HEAD"
        let maxAttempts = retriable ? max(1, policy.maxAttempts) : 1
        var retryReason: FetchEvent.RetryReason?
        var number = 0
        while true {
            number += 1
            let (decision, _) = try await attempt(
                request, at: origin, number: number, maxAttempts: maxAttempts, retriable: retriable,
                retryReason: retryReason, exchange: { try await self.transport.send($0) },
                response: { $0 }, bytes: { $0.body.count })
            switch decision {
            case .deliver(let response):
                return response
            case .fail(let error):
                throw error
            case .retry(let reason):
                retryReason = reason
            }
        }
    }

    /// Streams `request` into `sink` politely: waits for the host's turn, holds it for the whole transfer (so
    /// in serial mode nothing else goes to the host meanwhile), then records the outcome for the host like
    /// `send` does (gap, failure delay, `Retry-After` on 429/503, breaker, User-Agent rotation).
    ///
    /// Unlike `send` it makes exactly one attempt: a download resumes from where the failed attempt stopped,
    /// so retrying is the downloader's decision. Throws `FetchError` when the host is deferred or its breaker
    /// is open, `CancellationError` when cancelled, and the transport's error when the transfer fails.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        guard let origin = URLOrigin(request.url) else { throw FetchError.invalidURL(request.url) }
        let (decision, answer) = try await attempt(
            request, at: origin, number: 1, maxAttempts: 1, retriable: false, retryReason: nil,
            exchange: { try await self.transport.stream($0, to: sink) },
            response: { HTTPResponse(url: $0.head.url, status: $0.head.status, headers: $0.head.headers) },
            bytes: { $0.bodyBytes })
        if case .fail(let error) = decision { throw error }
        return try answer.get()
    }

    /// One polite attempt: waits for the host's turn, performs `exchange` with the turn's User-Agent, records
    /// the outcome for the host (from `response` of the answer, or the error), reports the event, and returns
    /// the host's decision together with the answer.
    private func attempt<Answer>(
        _ request: HTTPRequest, at origin: URLOrigin, number: Int, maxAttempts: Int, retriable: Bool,
        retryReason: FetchEvent.RetryReason?, exchange: (HTTPRequest) async throws -> Answer,
        response: (Answer) -> HTTPResponse, bytes: (Answer) -> Int
    ) async throws -> (decision: Decision, answer: Result<Answer, any Error>) {
        let key = origin.description
        let waitStart = clock.now
        let turn = try await takeTurn(at: key)
        var outgoing = request
        if outgoing.headers.value(for: "User-Agent") == nil {
            outgoing.headers.append(HTTPHeader("User-Agent", turn.userAgent))
        }
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
        let result = answer.map(response)
        let (decision, granted, outcome) = state.withLock { state in
            let (decision, granted) = finish(
                turn, at: key, result: result, state: &state, now: ended, wallNow: wallNow,
                attempt: number, maxAttempts: maxAttempts, retriable: retriable, url: request.url)
            let outcome = turn.claimedShared ? sharedOutcome(at: key, state: state, now: ended, wallNow: wallNow) : nil
            return (decision, granted, outcome)
        }
        if let outcome { releaseShared(turn, at: key, outcome: outcome) }
        for waiter in granted.resumed { waiter.continuation.resume() }
        for waiter in granted.failed { waiter.continuation.resume(throwing: waiter.error) }
        if let events {
            var errorText: String?
            if case .failure(let error) = answer { errorText = String(describing: error) }
            events(FetchEvent(
                time: startedDate, origin: origin, method: request.method.uppercased(), url: request.url, attempt: number,
                status: (try? result.get())?.status, bytes: (try? answer.get()).map(bytes) ?? 0,
                wait: started - waitStart, duration: ended - started, retryReason: retryReason, error: errorText,
                userAgent: outgoing.headers.value(for: "User-Agent") ?? turn.userAgent))
        }
        return (decision, answer)
    }

    // MARK: - Taking a turn

    /// A caller's right to send one request to a host, held from `takeTurn` to `finish`.
    private struct Turn {
        var id: Int
        var userAgent: String
        /// Whether the host is paced one request at a time (no `concurrentRate`).
        var serial: Bool
        /// Whether the turn was claimed in the ledger (and must be released there).
        var claimedShared = false
    }

    /// Waits for a free place among the host's in-flight requests, then for the host's next start time, and
    /// returns holding the place. Gives the place back if it throws.
    private func takeTurn(at key: String) async throws -> Turn {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        try await waitForPlace(at: key, id: id)
        while true {
            let step = state.withLock { state -> Step in
                plan(id, at: key, state: &state)
            }
            switch step {
            case .go(var turn):
                try await claimShared(&turn, at: key)
                return turn
            case .fail(let error, let granted):
                for waiter in granted { waiter.continuation.resume() }
                throw error
            case .sleep(let deadline):
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    let granted = state.withLock { state -> [Waiter] in
                        state.hosts[key]?.releasePlace(of: id, clock: clock) ?? []
                    }
                    for waiter in granted { waiter.continuation.resume() }
                    throw error
                }
            }
        }
    }

    private enum Step {
        case go(Turn)
        case sleep(until: Duration)
        case fail(any Error, granted: [Waiter])
    }

    /// Decides, for a caller holding a place, whether it may start now, must sleep (its start time is then
    /// reserved), or must give up.
    private func plan(_ id: Int, at key: String, state: inout State) -> Step {
        guard var host = state.hosts[key] else { return .fail(CancellationError(), granted: []) }
        defer { state.hosts[key] = host }
        let now = clock.now
        if Task.isCancelled {
            return .fail(CancellationError(), granted: host.releasePlace(of: id, clock: clock))
        }
        if let error = host.blockingError(key: key, now: now) {
            return .fail(error, granted: host.releasePlace(of: id, clock: clock))
        }
        let start: Duration
        if let reserved = host.reservations[id], reserved >= host.pausedUntil, reserved >= host.nextEarliest {
            start = reserved
        } else {
            host.reservations[id] = nil
            start = host.earliestStart(excluding: id, now: now)
        }
        guard start <= now else {
            host.reservations[id] = start
            return .sleep(until: start)
        }
        host.reservations[id] = nil
        switch host.rate {
        case .interval?:
            host.lastStart = now
        case .window(_, let window)?:
            host.starts.removeAll { $0 <= now - window }
            host.starts.append(now)
        case nil:
            break
        }
        let agent: String
        switch policy.userAgentRotation {
        case .off:
            agent = policy.userAgents.agent(at: 0)
        case .session:
            agent = policy.userAgents.agent(at: host.userAgentIndex)
        case .request:
            agent = policy.userAgents.agent(at: host.userAgentIndex)
            host.userAgentIndex += 1
        }
        return .go(Turn(id: id, userAgent: agent, serial: host.rate == nil))
    }

    /// Waits (cancellably) until the host has room for one more request in flight, and takes that room.
    private func waitForPlace(at key: String, id: Int) async throws {
        let clock = self.clock
        let poolSize = policy.userAgents.agents.count
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let immediate = state.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.ensureHost(key, poolSize: poolSize)
                    guard var host = state.hosts[key] else { return .failure(CancellationError()) }
                    defer { state.hosts[key] = host }
                    if let error = host.blockingError(key: key, now: clock.now) { return .failure(error) }
                    if host.inFlight < host.limit {
                        host.inFlight += 1
                        return .success(())
                    }
                    host.waiters.append(Waiter(id: id, continuation: continuation))
                    clock.callerWillBlock()
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> Waiter? in
                guard let index = state.hosts[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                clock.callerDidUnblock()
                return state.hosts[key]?.waiters.remove(at: index)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    // MARK: - Finishing a request

    private enum Decision {
        case deliver(HTTPResponse)
        case fail(any Error)
        case retry(FetchEvent.RetryReason)
    }

    private struct Granted {
        var resumed: [Waiter] = []
        var failed: [(continuation: CheckedContinuation<Void, any Error>, error: FetchError)] = []
    }

    /// Records the outcome of a request for its host (gap, backoff, Retry-After, breaker, User-Agent),
    /// gives the place to the next caller and says what `send` does next.
    private func finish(
        _ turn: Turn, at key: String, result: Result<HTTPResponse, any Error>, state: inout State, now: Duration,
        wallNow: Date, attempt: Int, maxAttempts: Int, retriable: Bool, url: String
    ) -> (Decision, Granted) {
        var granted = Granted()
        guard var host = state.hosts[key] else {
            switch result {
            case .success(let response): return (.deliver(response), granted)
            case .failure(let error): return (.fail(error), granted)
            }
        }
        defer { state.hosts[key] = host }
        granted.resumed = host.releasePlace(of: turn.id, clock: clock)
        let baseDelay = host.rate == nil ? policy.delay : .zero

        var status: Int?
        var response: HTTPResponse?
        var transportError: (any Error)?
        switch result {
        case .success(let value):
            response = value
            status = value.status
        case .failure(let error):
            transportError = error
            if error is CancellationError || Task.isCancelled {
                host.sharedNote = (failed: nil, retryAfterUntil: nil)
                host.setGap(after: now, base: baseDelay, policy: policy, random: &state.random)
                return (.fail(error), granted)
            }
        }

        let retryableStatus = status.map { $0 == 408 || $0 == 429 || (500...599).contains($0) } ?? false
        // Only a connection that failed or timed out may work next time; a refused redirect, a redirect loop or
        // an oversized body will not, so those are neither retried nor counted against the host.
        let connectionError = transportError.map(Self.isConnectionError) ?? false
        let failed = connectionError || retryableStatus || status == 403
        var retryAfter: Duration?
        if retryableStatus, let value = response?.headers.value(for: "Retry-After") {
            retryAfter = RetryAfter.delay(value, now: wallNow)
        }
        if failed {
            host.consecutiveFailures += 1
        } else {
            host.consecutiveFailures = 0
        }
        host.sharedNote = (failed: failed, retryAfterUntil: retryAfter.map { wallNow.addingTimeInterval($0.inSeconds) })
        if let retryAfter {
            // The server said when to come back: that is the wait, not the failure delay, and the host's delay
            // is not raised (the next success goes on at the normal pace).
            if retryAfter > policy.retryAfterCap {
                let until = wallNow.addingTimeInterval(retryAfter.inSeconds)
                host.deferred = Deferral(until: now + retryAfter, date: until, retryAfter: retryAfter)
                host.pausedUntil = max(host.pausedUntil, now + retryAfter)
                let error = FetchError.hostDeferred(host: key, until: until, retryAfter: retryAfter)
                granted.failed = host.failAllWaiters(with: error, clock: clock)
                return (.fail(error), granted)
            }
            host.setWait(after: now, retryAfter: retryAfter, base: baseDelay, policy: policy, random: &state.random)
        } else {
            if failed {
                // A failure that says nothing: slow down, and come back down gradually (halving per success).
                let extra = policy.failureDelay - baseDelay
                if extra > host.extraDelay { host.extraDelay = extra }
            } else {
                host.extraDelay = host.extraDelay < .milliseconds(1) ? .zero : host.extraDelay / 2
            }
            host.setGap(after: now, base: baseDelay, policy: policy, random: &state.random)
        }
        if let status, status == 403 || status == 429 || status == 503, policy.userAgentRotation == .session {
            host.userAgentIndex += 1
        }

        if failed, policy.breakerThreshold > 0, host.consecutiveFailures >= policy.breakerThreshold,
           !host.breakerOpen
        {
            host.breakerOpen = true
            let error = FetchError.breakerOpen(host: key, failures: host.consecutiveFailures)
            granted.failed = host.failAllWaiters(with: error, clock: clock)
        }

        let shouldRetry = retriable && (connectionError || retryableStatus)
        guard shouldRetry else {
            if let response { return (.deliver(response), granted) }
            return (.fail(transportError ?? CancellationError()), granted)
        }
        if host.breakerOpen {
            return (.fail(FetchError.breakerOpen(host: key, failures: host.consecutiveFailures)), granted)
        }
        if attempt >= maxAttempts {
            let error = FetchError.gaveUp(
                url: url, attempts: attempt, lastStatus: status, lastError: transportError.map { "\($0)" })
            return (.fail(error), granted)
        }
        let reason: FetchEvent.RetryReason
        if let status, let retryAfter {
            reason = .retryAfter(status: status, delay: retryAfter)
        } else {
            let exponent = Double(min(attempt - 1, 60))
            let ceiling = min(policy.backoffCap.inSeconds, policy.backoffBase.inSeconds * pow(2, exponent))
            let backoff = Duration.seconds(max(0, ceiling)).scaled(by: state.random.unit())
            host.pausedUntil = max(host.pausedUntil, now + backoff)
            if let status {
                reason = .status(status)
            } else {
                reason = .transportError(transportError.map { "\($0)" } ?? "no response")
            }
        }
        return (.retry(reason), granted)
    }

    // MARK: - The shared ledger

    /// The ledger, while it works.
    private func currentLedger() -> (any HostTurnLedger)? {
        ledger.withLock { $0 }
    }

    /// Stops using the ledger after `error` and reports it, once.
    private func disableLedger(after error: any Error) {
        let wasInUse = ledger.withLock { ledger -> Bool in
            defer { ledger = nil }
            return ledger != nil
        }
        if wasInUse { ledgerFailed?(error) }
    }

    /// With a ledger, claims the host's turn there for `turn` (already this process's turn): waits while
    /// another process holds it or until the shared next start time, and throws (giving up the place held
    /// here) when the host is deferred or its shared breaker is open. Without a working ledger it returns at
    /// once.
    private func claimShared(_ turn: inout Turn, at key: String) async throws {
        let token = "\(ledgerTokenPrefix)-\(turn.id)"
        while let ledger = currentLedger() {
            let claim: HostTurnClaim
            do {
                claim = try ledger.claim(
                    host: key, token: token, serial: turn.serial, now: clock.wallClock,
                    retryAfterCap: policy.retryAfterCap)
            } catch {
                disableLedger(after: error)
                return
            }
            let failure: any Error
            switch claim {
            case .granted:
                turn.claimedShared = true
                return
            case .wait(let until):
                // Rounded up to the millisecond: Unix time as a Double is exact to about 0.2 µs only, and the
                // gap must never come out a hair short.
                let seconds = max(0, min(until.timeIntervalSince(clock.wallClock), 1e9))
                let wait = Duration.milliseconds(Int64((seconds * 1000).rounded(.up)))
                do {
                    try await clock.sleep(until: clock.now + wait)
                    continue
                } catch {
                    failure = error
                }
            case .deferred(let until):
                let retryAfter = Duration.seconds(max(0, min(until.timeIntervalSince(clock.wallClock), 1e9)))
                let now = clock.now
                state.withLock { state in
                    state.hosts[key]?.deferred = Deferral(until: now + retryAfter, date: until, retryAfter: retryAfter)
                }
                failure = FetchError.hostDeferred(host: key, until: until, retryAfter: retryAfter)
            case .breakerOpen(let failures, _):
                failure = FetchError.breakerOpen(host: key, failures: failures)
            }
            let granted = state.withLock { state -> [Waiter] in
                state.hosts[key]?.releasePlace(of: turn.id, clock: clock) ?? []
            }
            for waiter in granted { waiter.continuation.resume() }
            throw failure
        }
    }

    /// What to record in the ledger for the host after `finish`: its next start time as a wall-clock date,
    /// the `Retry-After` deadline and whether the request failed.
    private func sharedOutcome(at key: String, state: State, now: Duration, wallNow: Date) -> HostTurnOutcome? {
        guard let host = state.hosts[key] else { return nil }
        let resume = max(host.nextEarliest, host.pausedUntil, now)
        return HostTurnOutcome(
            endedAt: wallNow, nextRequestAt: wallNow.addingTimeInterval((resume - now).inSeconds),
            retryAfterUntil: host.sharedNote.retryAfterUntil, failed: host.sharedNote.failed,
            breakerThreshold: max(0, policy.breakerThreshold))
    }

    /// Records `outcome` in the ledger and gives the shared turn up.
    private func releaseShared(_ turn: Turn, at key: String, outcome: HostTurnOutcome) {
        guard let ledger = currentLedger() else { return }
        do {
            try ledger.release(host: key, token: "\(ledgerTokenPrefix)-\(turn.id)", outcome: outcome)
        } catch {
            disableLedger(after: error)
        }
    }

    // MARK: - Host keys

    /// `scheme://host:port` for an absolute http(s) URL (host lower-cased, default port filled in), or nil:
    /// the `URLOrigin` of the URL, the key of the host's queue.
    package static func hostKey(_ url: String) -> String? {
        URLOrigin(url)?.description
    }
}

// MARK: - State

/// A caller waiting for room at a host.
private struct Waiter: Sendable {
    var id: Int
    var continuation: CheckedContinuation<Void, any Error>
}

/// A host's deferral after a `Retry-After` over the cap.
private struct Deferral {
    var until: Duration
    var date: Date
    var retryAfter: Duration
}

/// Everything the fetcher knows, behind its lock.
private struct State {
    var hosts: [String: HostState] = [:]
    var random: any RandomNumberGenerator & Sendable
    var nextID = 0

    init(random: any RandomNumberGenerator & Sendable) {
        self.random = random
    }

    /// Creates the host's state on first use, with a random first User-Agent (a random start per run).
    mutating func ensureHost(_ key: String, poolSize: Int) {
        guard hosts[key] == nil else { return }
        var host = HostState()
        host.userAgentIndex = Int(random.next() % UInt64(max(1, poolSize)))
        hosts[key] = host
    }
}

/// One host's pacing, backoff and breaker state.
private struct HostState {
    var rate: ConcurrentRate?
    /// Callers holding a place (waiting for their start time or in flight).
    var inFlight = 0
    var waiters: [Waiter] = []
    /// No start before this: the end of the last response plus the gap.
    var nextEarliest: Duration = .zero
    /// No start before this: Retry-After or backoff.
    var pausedUntil: Duration = .zero
    /// Start times reserved by callers sleeping until them.
    var reservations: [Int: Duration] = [:]
    /// `.interval` rate: when the last request started.
    var lastStart: Duration?
    /// `.window` rate: recent start times.
    var starts: [Duration] = []
    /// Added to the base delay after failures; halves with each success.
    var extraDelay: Duration = .zero
    var consecutiveFailures = 0
    var breakerOpen = false
    var deferred: Deferral?
    var userAgentIndex = 0
    /// What the last finished request means for the shared ledger: whether it counts as a failure (nil: not
    /// counted, e.g. cancelled) and the `Retry-After` deadline it brought.
    var sharedNote: (failed: Bool?, retryAfterUntil: Date?) = (nil, nil)

    /// How many requests may be in flight at once.
    var limit: Int {
        if case .window(let requests, _)? = rate { return max(1, requests) }
        return 1
    }

    func blockingError(key: String, now: Duration) -> FetchError? {
        if breakerOpen { return .breakerOpen(host: key, failures: consecutiveFailures) }
        if let deferred, now < deferred.until {
            return .hostDeferred(host: key, until: deferred.date, retryAfter: deferred.retryAfter)
        }
        return nil
    }

    /// The earliest time a new request may start, after every other caller's reservation.
    func earliestStart(excluding id: Int, now: Duration) -> Duration {
        var start = max(now, nextEarliest, pausedUntil)
        switch rate {
        case .interval(let interval)?:
            if let lastStart { start = max(start, lastStart + interval) }
        case .window(let requests, let window)?:
            var times = starts.filter { $0 > now - window }
            times += reservations.filter { $0.key != id }.map(\.value)
            times.sort()
            if let last = times.last { start = max(start, last) }
            if times.count >= requests { start = max(start, times[times.count - requests] + window) }
        case nil:
            break
        }
        return start
    }

    /// Sets the end-to-start gap after a response that ended at `end`.
    mutating func setGap(
        after end: Duration, base: Duration, policy: PolitenessPolicy,
        random: inout any RandomNumberGenerator & Sendable
    ) {
        let gap = base + extraDelay
        var drawn = gap
        if policy.jitter, gap > .zero {
            drawn = max(gap, gap.scaled(by: 1 + 0.5 * random.unit()))
        }
        nextEarliest = max(nextEarliest, end + drawn)
    }

    /// Pauses the host after a response that ended at `end` and asked, with `Retry-After`, for `retryAfter`:
    /// no request starts before that wait, never shorter than the host's `base` delay, plus jitter that only
    /// adds (up to half the base delay, the same spread as a normal gap).
    mutating func setWait(
        after end: Duration, retryAfter: Duration, base: Duration, policy: PolitenessPolicy,
        random: inout any RandomNumberGenerator & Sendable
    ) {
        var wait = max(retryAfter, base)
        if policy.jitter, base > .zero { wait += (base / 2).scaled(by: random.unit()) }
        pausedUntil = max(pausedUntil, end + retryAfter)
        nextEarliest = max(nextEarliest, end + wait)
    }

    /// Gives up a place: to the first waiter if there is room, otherwise frees it. Returns the waiter to resume.
    mutating func releasePlace(of id: Int, clock: any FetchClock) -> [Waiter] {
        reservations[id] = nil
        if inFlight <= limit, !waiters.isEmpty {
            clock.callerDidUnblock()
            return [waiters.removeFirst()]
        }
        inFlight = max(0, inFlight - 1)
        return []
    }

    /// Gives free places to waiters (after the limit was raised).
    mutating func grantWaiters(clock: any FetchClock) -> [Waiter] {
        var granted: [Waiter] = []
        while inFlight < limit, !waiters.isEmpty {
            inFlight += 1
            clock.callerDidUnblock()
            granted.append(waiters.removeFirst())
        }
        return granted
    }

    /// Removes every waiter, to fail them with `error`.
    mutating func failAllWaiters(with error: FetchError, clock: any FetchClock)
        -> [(continuation: CheckedContinuation<Void, any Error>, error: FetchError)]
    {
        let failed = waiters.map { waiter in
            clock.callerDidUnblock()
            return (continuation: waiter.continuation, error: error)
        }
        waiters.removeAll()
        return failed
    }
}

extension RandomNumberGenerator {
    /// A uniform number in [0, 1].
    fileprivate mutating func unit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53 - 1)
    }
}
