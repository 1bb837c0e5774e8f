import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
import BookRuleJSON
import BookRuleDocument
import BookRuleLibrary
import TestSupport

// Each seam of the polite fetcher on its own (docs/architecture.md, "The polite fetcher"); the stack as a
// whole is tested in PoliteFetcherTests.

private let origin = URLOrigin("https://a.example/")!
private let key = "https://a.example:443"

private func outcome(status: Int, headers: [HTTPHeader] = []) -> AttemptOutcome {
    AttemptOutcome(.success(HTTPResponse(url: "https://a.example/", status: status, headers: headers, body: [])),
                   wallNow: VirtualFetchClock.defaultEpoch)
}

private func outcome(error: any Error) -> AttemptOutcome {
    AttemptOutcome(.failure(error), wallNow: VirtualFetchClock.defaultEpoch)
}

/// Collects wait reports.
private final class WaitLog: Sendable {
    private let waits = Locked<[FetchWait]>([])
    var all: [FetchWait] { waits.withLock { $0 } }
    func record(_ wait: FetchWait) { waits.withLock { $0.append(wait) } }
}

@Suite struct RetryPolicyTests {
    @Test func onlyRequestTimeoutTooManyRequestsAndServerErrorsAreRetriable() {
        for status in [408, 429, 500, 503, 599] { #expect(RetryPolicy.isRetriable(status: status)) }
        for status in [200, 301, 403, 404, 410, 499, 600] { #expect(!RetryPolicy.isRetriable(status: status)) }
    }

    @Test func onlyGetAndHeadAreSentAgain() {
        #expect(RetryPolicy.isRetriable(method: "GET") && RetryPolicy.isRetriable(method: "head"))
        #expect(!RetryPolicy.isRetriable(method: "POST") && !RetryPolicy.isRetriable(method: "PUT"))
        #expect(RetryPolicy(maxAttempts: 5).attempts(for: "POST") == 1)
        #expect(RetryPolicy(maxAttempts: 0).attempts(for: "GET") == 1)
    }

    @Test func connectionErrorsAndTimeoutsMayGoAwayButVerdictsOnTheAnswerDoNot() {
        #expect(RetryPolicy.isConnectionError(HTTPTransportError.timedOut(url: "u", seconds: 1)))
        #expect(RetryPolicy.isConnectionError(TestTransportError(message: "reset")))
        #expect(!RetryPolicy.isConnectionError(HTTPTransportError.redirectLoop(url: "u", loop: [])))
    }

    @Test func theBackoffCeilingDoublesFromTheBaseUpToTheCap() {
        let policy = RetryPolicy(maxAttempts: 9, backoffBase: .seconds(2), backoffCap: .seconds(10))
        #expect((1...5).map(policy.backoffCeiling(after:)) == [.seconds(2), .seconds(4), .seconds(8), .seconds(10), .seconds(10)])
    }

    @Test func aRetryAfterIsTheWaitAndOtherFailuresBackOff() {
        let policy = RetryPolicy(maxAttempts: 3)
        let url = "https://a.example/"
        guard case .retry(.retryAfter(503, .seconds(2)), nil) = policy.decide(
            outcome(status: 503, headers: [HTTPHeader("Retry-After", "2")]), attempt: 1, retriable: true, url: url)
        else { Issue.record("a 503 with Retry-After is retried after it"); return }
        guard case .retry(.status(500), .seconds(4)?) = policy.decide(outcome(status: 500), attempt: 2, retriable: true, url: url)
        else { Issue.record("a 500 backs off"); return }
        guard case .exhausted(.gaveUp(url, 3, 500, nil)) = policy.decide(outcome(status: 500), attempt: 3, retriable: true, url: url)
        else { Issue.record("the third 500 of three gives up"); return }
        guard case .deliver(let response) = policy.decide(outcome(status: 404), attempt: 1, retriable: true, url: url),
              response.status == 404
        else { Issue.record("a 404 is handed back"); return }
        guard case .deliver = policy.decide(outcome(status: 503), attempt: 1, retriable: false, url: url)
        else { Issue.record("a request that may not be retried gets its 503"); return }
        guard case .fail(let error) = policy.decide(outcome(error: CancellationError()), attempt: 1, retriable: true, url: url),
              error is CancellationError
        else { Issue.record("cancellation is never retried"); return }
    }

    @Test func thePolitenessPolicyCarriesTheRetryRule() {
        var policy = PolitenessPolicy(maxAttempts: 7, backoffBase: .seconds(1), backoffCap: .seconds(9))
        #expect(policy.retry == RetryPolicy(maxAttempts: 7, backoffBase: .seconds(1), backoffCap: .seconds(9)))
        policy.retry.maxAttempts = 2
        #expect(policy.maxAttempts == 2)
    }
}

@Suite struct AttemptOutcomeTests {
    @Test func whatCountsAgainstAHost() {
        #expect(outcome(status: 503).failed == true)
        #expect(outcome(status: 403).failed == true)
        #expect(outcome(status: 404).failed == false)
        #expect(outcome(error: TestTransportError(message: "reset")).failed == true)
        #expect(outcome(error: HTTPTransportError.redirectLoop(url: "u", loop: [])).failed == false)
        #expect(outcome(error: CancellationError()).failed == nil)
    }

    @Test func retryAfterIsReadOnRetriableStatusesOnly() {
        #expect(outcome(status: 429, headers: [HTTPHeader("Retry-After", "4")]).retryAfter == .seconds(4))
        #expect(outcome(status: 404, headers: [HTTPHeader("Retry-After", "4")]).retryAfter == nil)
    }
}

@Suite struct HostBreakerTests {
    @Test func itOpensOnceAfterTheThresholdOfFailuresInARow() {
        let breaker = HostBreaker(threshold: 3)
        #expect(breaker.record(true, at: key) == nil)
        #expect(breaker.record(true, at: key) == nil)
        #expect(breaker.blockingError(at: key) == nil)
        #expect(breaker.record(true, at: key) == .breakerOpen(host: key, failures: 3))
        #expect(breaker.blockingError(at: key) == .breakerOpen(host: key, failures: 3))
        #expect(breaker.record(true, at: key) == nil)  // reported once
        #expect(breaker.blockingError(at: "https://b.example:443") == nil)
        breaker.reset(at: key)
        #expect(breaker.blockingError(at: key) == nil)
    }

    @Test func aSuccessStartsTheCountAgainAndACancellationCountsNothing() {
        let breaker = HostBreaker(threshold: 2)
        #expect(breaker.record(true, at: key) == nil)
        #expect(breaker.record(nil, at: key) == nil)
        #expect(breaker.record(false, at: key) == nil)
        #expect(breaker.record(true, at: key) == nil)
        #expect(breaker.blockingError(at: key) == nil)
    }

    @Test func aFailureThatDefersTheHostCountsButDoesNotOpenIt() {
        let breaker = HostBreaker(threshold: 2)
        #expect(breaker.record(true, at: key) == nil)
        #expect(breaker.record(true, at: key, mayOpen: false) == nil)
        #expect(breaker.blockingError(at: key) == nil)
        #expect(breaker.record(true, at: key) == .breakerOpen(host: key, failures: 3))
    }

    @Test func aThresholdOfZeroNeverOpens() {
        let breaker = HostBreaker(threshold: 0)
        for _ in 0..<50 { #expect(breaker.record(true, at: key) == nil) }
        #expect(breaker.blockingError(at: key) == nil)
    }
}

@Suite struct HostUserAgentsTests {
    private func agents(_ rotation: UserAgentPool.Rotation) -> HostUserAgents {
        let agents = HostUserAgents(pool: .currentBrowsers, rotation: rotation, random: FetchRandom(SeededRandomNumberGenerator(seed: 3)))
        agents.register(key)
        return agents
    }

    @Test func aSessionKeepsItsUserAgentUntilTheSiteRefusesIt() {
        let agents = agents(.session)
        let first = agents.apply(to: HTTPRequest(url: "https://a.example/"), at: key).userAgent
        agents.record(status: 404, at: key)
        #expect(agents.apply(to: HTTPRequest(url: "https://a.example/"), at: key).userAgent == first)
        agents.record(status: 503, at: key)
        #expect(agents.apply(to: HTTPRequest(url: "https://a.example/"), at: key).userAgent != first)
    }

    @Test func perRequestRotationMovesOnEveryTimeAndOffStaysOnTheFirst() {
        let rotating = agents(.request)
        let sent = (0..<3).map { _ in rotating.apply(to: HTTPRequest(url: "https://a.example/"), at: key).userAgent }
        #expect(Set(sent).count == 3)
        let fixed = agents(.off)
        #expect(fixed.apply(to: HTTPRequest(url: "https://a.example/"), at: key).userAgent == UserAgentPool.currentBrowsers.agent(at: 0))
    }

    @Test func theRequestsOwnUserAgentWinsAndIsNotDoubled() {
        let (request, agent) = agents(.session).apply(
            to: HTTPRequest(url: "https://a.example/", headers: [HTTPHeader("User-Agent", "Mine/1")]), at: key)
        #expect(agent == "Mine/1")
        #expect(request.headers.filter { $0.name.lowercased() == "user-agent" }.count == 1)
    }
}

@Suite(.timeLimit(.minutes(1 * TestTime.scale)))
struct HostPacerTests {
    private let policy = PolitenessPolicy(delay: .milliseconds(500), failureDelay: .seconds(5), jitter: false)

    private func pacer(_ clock: VirtualFetchClock, waits: WaitLog? = nil) -> HostPacer {
        var report: (@Sendable (FetchWait) -> Void)?
        if let waits { report = { waits.record($0) } }
        return HostPacer(policy: policy, clock: clock, random: FetchRandom(SeededRandomNumberGenerator(seed: 1)), waits: report)
    }

    /// Takes a turn and ends it at once with `outcome`; returns when the turn started.
    private func turn(_ pacer: HostPacer, _ clock: VirtualFetchClock, ending outcome: AttemptOutcome) async throws -> Duration {
        try await clock.run {
            let id = try await pacer.takeTurn(at: origin, blocked: { _ in nil })
            let start = clock.now
            pacer.finish(id, at: key, outcome: outcome, now: clock.now, wallNow: clock.wallClock).0.perform()
            return start
        }
    }

    @Test func theGapIsTheDelayAfterASuccessAndTheFailureDelayAfterAFailure() async throws {
        let clock = VirtualFetchClock()
        let pacer = pacer(clock)
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .zero)
        #expect(try await turn(pacer, clock, ending: outcome(status: 403)) == .milliseconds(500))
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .milliseconds(5500))
        // Back down gradually: half the extra delay per success.
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .milliseconds(8250))
    }

    @Test func aRetryAfterPausesTheHostAndTheWaitIsReportedAsItStartsAndEnds() async throws {
        let clock = VirtualFetchClock()
        let waits = WaitLog()
        let pacer = pacer(clock, waits: waits)
        _ = try await turn(pacer, clock, ending: outcome(status: 503, headers: [HTTPHeader("Retry-After", "2")]))
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .seconds(2))
        #expect(waits.all.map(\.phase) == [.started, .ended])
        #expect(waits.all.allSatisfy { $0.reason == .retryAfter && $0.duration == .seconds(2) && $0.host == key })
        #expect(waits.all.first?.description == "waiting 2 s for a.example:443: Retry-After")
    }

    @Test func aBackoffPauseIsReportedAsABackoff() async throws {
        let clock = VirtualFetchClock()
        let waits = WaitLog()
        let pacer = pacer(clock, waits: waits)
        _ = try await turn(pacer, clock, ending: outcome(status: 500))
        pacer.pause(at: key, until: .seconds(9), reason: .backoff)
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .seconds(9))
        #expect(waits.all.first?.reason == .backoff)
    }

    @Test func aRetryAfterOverTheCapDefersTheHost() async throws {
        let clock = VirtualFetchClock()
        let pacer = pacer(clock)
        let error = try await clock.run {
            let id = try await pacer.takeTurn(at: origin, blocked: { _ in nil })
            let (handoff, error) = pacer.finish(
                id, at: key, outcome: outcome(status: 429, headers: [HTTPHeader("Retry-After", "3600")]),
                now: clock.now, wallNow: clock.wallClock)
            handoff.perform()
            return error
        }
        let expected = FetchError.hostDeferred(
            host: key, until: VirtualFetchClock.defaultEpoch.addingTimeInterval(3600), retryAfter: .seconds(3600))
        #expect(error == expected)
        await #expect(throws: expected) { _ = try await turn(pacer, clock, ending: outcome(status: 200)) }
        #expect(clock.now == .zero)
    }

    @Test func aBlockedHostIsRefusedBeforeAnyWait() async throws {
        let clock = VirtualFetchClock()
        let pacer = pacer(clock)
        let refusal = FetchError.breakerOpen(host: key, failures: 10)
        await #expect(throws: refusal) {
            try await clock.run { try await pacer.takeTurn(at: origin, blocked: { _ in refusal }) }
        }
        // The refused caller held no place: the next one starts at once.
        #expect(try await turn(pacer, clock, ending: outcome(status: 200)) == .zero)
    }
}

/// A ledger that makes the first claim wait until `until`, then grants; records what was released.
private final class WaitingLedger: HostTurnLedger {
    let until: Date
    let claims = Locked(0)
    let released = Locked<[HostTurnOutcome]>([])

    init(until: Date) {
        self.until = until
    }

    func claim(host: String, token: String, serial: Bool, now: @autoclosure () -> Date, retryAfterCap: Duration) throws -> HostTurnClaim {
        let number = claims.withLock { count -> Int in
            count += 1
            return count
        }
        return number == 1 ? .wait(until: until) : .granted
    }

    func release(host: String, token: String, outcome: HostTurnOutcome) throws { released.withLock { $0.append(outcome) } }
    func resetBreaker(host: String) throws {}
}

@Suite(.timeLimit(.minutes(1 * TestTime.scale)))
struct SharedHostTurnsTests {
    @Test func aTurnHeldByAnotherRunIsWaitedForAndReported() async throws {
        let clock = VirtualFetchClock()
        let waits = WaitLog()
        let ledger = WaitingLedger(until: VirtualFetchClock.defaultEpoch.addingTimeInterval(3))
        let shared = SharedHostTurns(
            ledger: ledger, failed: { Issue.record("ledger failed: \($0)") }, tokenPrefix: "t", clock: clock,
            retryAfterCap: .seconds(300), waits: { waits.record($0) })
        let claimed = try await clock.run { try await shared.claim(1, at: origin, serial: true) }
        #expect(claimed)
        #expect(clock.now == .seconds(3))
        #expect(waits.all.map(\.phase) == [.started, .ended])
        #expect(waits.all.first?.reason == .otherRun)
        let ended = clock.wallClock
        shared.release(1, at: key, outcome: HostTurnOutcome(
            endedAt: ended, nextRequestAt: ended, retryAfterUntil: nil, failed: false, breakerThreshold: 10))
        #expect(ledger.released.withLock { $0.count } == 1)
    }

    @Test func aFailingLedgerIsReportedOnceAndThenLeftAlone() async throws {
        let clock = VirtualFetchClock()
        let ledger = BrokenLedger()
        let reports = Locked(0)
        let shared = SharedHostTurns(
            ledger: ledger, failed: { _ in reports.withLock { $0 += 1 } }, tokenPrefix: "t", clock: clock,
            retryAfterCap: .seconds(300), waits: nil)
        for id in 1...3 { #expect(try await clock.run { try await shared.claim(id, at: origin, serial: true) } == false) }
        shared.resetBreaker(at: key)
        #expect(reports.withLock { $0 } == 1)
        #expect(ledger.calls.withLock { $0 } == 1)
    }
}

/// Streams a 200 head and `bytes` body bytes, then drops the connection.
private struct DroppingTransport: HTTPTransport {
    var bytes: Int

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw TestTransportError(message: "send is not used")
    }

    func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        _ = sink.receiveHead(HTTPResponseHead(url: request.url, status: 200, headers: []))
        let body = [UInt8](repeating: 0x61, count: bytes)
        _ = body.withUnsafeBytes { sink.receiveBody($0) }
        throw TestTransportError(message: "connection reset")
    }
}

/// Accepts everything.
private struct DiscardingSink: HTTPBodySink {
    func receiveHead(_ head: HTTPResponseHead) -> Bool { true }
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool { true }
}

@Suite(.timeLimit(.minutes(1 * TestTime.scale)))
struct PoliteFetcherReportingTests {
    @Test func aRetryAfterWaitIsReportedWhileItHappensNotOnlyAfterwards() async throws {
        let clock = VirtualFetchClock()
        let transport = ScriptedTransport(clock: clock, latency: .zero) { call in
            call.index == 0 ? .status(503, headers: [HTTPHeader("Retry-After", "4")]) : .status(200)
        }
        let waits = WaitLog()
        let fetcher = PoliteFetcher(
            transport: transport, policy: fastPolicy, clock: clock, random: SeededRandomNumberGenerator(seed: 7),
            waits: { wait in waits.record(wait) })
        let response = try await clock.run { try await fetcher.send(HTTPRequest(url: "https://a.example/1")) }
        #expect(response.status == 200)
        let started = waits.all.filter { $0.phase == .started }
        #expect(started.map(\.reason) == [.retryAfter])
        #expect(started.first?.duration == .seconds(4))
        #expect(waits.all.last?.phase == .ended)
    }

    @Test func aTransferDroppedMidBodyIsReportedWithItsStatusAndTheBytesThatArrived() async throws {
        let clock = VirtualFetchClock()
        let log = EventLog()
        let fetcher = PoliteFetcher(
            transport: DroppingTransport(bytes: 14_000), policy: fastPolicy, clock: clock,
            random: SeededRandomNumberGenerator(seed: 7), events: { log.record($0) })
        await #expect(throws: TestTransportError(message: "connection reset")) {
            try await clock.run { try await fetcher.stream(HTTPRequest(url: "https://a.example/big"), to: DiscardingSink()) }
        }
        let event = try #require(log.all.first)
        #expect(event.bytes == 14_000)
        #expect(event.status == 200)
        #expect(event.description.contains("-> 200, then failed (connection reset), 14000 B"))
    }
}
