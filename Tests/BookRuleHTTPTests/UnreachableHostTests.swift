import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

/// Issue #32: over many sources, a host that cannot be reached gets one attempt, is remembered as down for the
/// run, and never holds back the others; a host that answers keeps every politeness rule.
@Suite("Unreachable hosts are tried once and remembered as down", .timeLimit(.minutes(1 * TestTime.scale)))
struct UnreachableHostTests {
    static let dead = "https://dead.example:443"

    static func policy(givesUp: Bool = true) -> PolitenessPolicy {
        PolitenessPolicy(givesUpOnUnreachableHosts: givesUp)
    }

    static let unreachable: [HTTPTransportError] = [
        .couldNotConnect(url: "https://dead.example/", message: "Failed to connect to dead.example port 443: Connection refused"),
        .connectTimedOut(url: "https://dead.example/", seconds: 5),
        .nameNotResolved(url: "https://dead.example/", host: "dead.example"),
    ]

    @Test("a refused, silent or unresolvable host: one attempt, no backoff, then hostDown naming it at once",
          arguments: unreachable)
    func triedOnceAndRemembered(error: HTTPTransportError) async throws {
        let clock = VirtualFetchClock()
        let transport = ScriptedTransport(clock: clock, latency: .milliseconds(1)) { call in
            call.request.url.contains("dead.example") ? .fail(error) : .status(200)
        }
        let events = EventLog()
        let fetcher = makeFetcher(transport, clock: clock, policy: Self.policy(), events: events)
        let first = await outcome(of: clock.spawn { try await fetcher.send(HTTPRequest(url: "https://dead.example/search")) })
        guard case .failure(let thrown) = first else {
            Issue.record("expected the transport's error, got a response")
            return
        }
        #expect(thrown as? HTTPTransportError == error)
        #expect(transport.records.count == 1)
        // No backoff was slept: the default one starts at 2 s.
        #expect(clock.now < .milliseconds(100))

        let second = await outcome(of: clock.spawn { try await fetcher.send(HTTPRequest(url: "https://dead.example/book/1/")) })
        guard case .failure(let down) = second, case .hostDown(let host, let reason)? = down as? FetchError else {
            Issue.record("expected hostDown, got \(second)")
            return
        }
        #expect(host == Self.dead)
        #expect(!reason.isEmpty)
        #expect("\(down)".contains(Self.dead) && "\(down)".contains("down for this run"), "\(down)")
        #expect(transport.records.count == 1, "a host found down is not asked again")
        #expect(clock.now < .milliseconds(100))

        let other = try await clock.run { try await fetcher.send(HTTPRequest(url: "https://a.example/")) }
        #expect(other.status == 200)
        #expect(events.all.filter { $0.host == hostA }.allSatisfy { $0.wait == .zero })
    }

    @Test("callers waiting for a dead host's turn fail at once; another host's requests are not held back")
    func waitersFailAndOthersGoOn() async throws {
        let clock = VirtualFetchClock()
        let transport = ScriptedTransport(clock: clock, latency: .milliseconds(200)) { call in
            call.request.url.contains("dead.example")
                ? .fail(HTTPTransportError.couldNotConnect(url: call.request.url, message: "Connection refused"))
                : .status(200)
        }
        let fetcher = makeFetcher(transport, clock: clock, policy: Self.policy())
        let tasks = clock.holding {
            (0..<5).map { index in clock.spawn { try await fetcher.send(HTTPRequest(url: "https://dead.example/\(index)")) } }
        }
        let live = clock.holding {
            (0..<3).map { index in clock.spawn { try await fetcher.send(HTTPRequest(url: "https://a.example/\(index)")) } }
        }
        var refused = 0
        var down = 0
        for task in tasks {
            switch await outcome(of: task) {
            case .success: Issue.record("a dead host answered")
            case .failure(let error as HTTPTransportError):
                if case .couldNotConnect = error { refused += 1 }
            case .failure(let error as FetchError):
                if case .hostDown = error { down += 1 }
            case .failure(let error): Issue.record("unexpected \(error)")
            }
        }
        #expect(refused == 1 && down == 4)
        #expect(transport.records.filter { $0.host == Self.dead }.count == 1)
        // Every waiter failed when the one attempt ended (200 ms), not after a failure delay or a backoff.
        let deadEnd = transport.records.first { $0.host == Self.dead }?.end ?? .zero
        #expect(deadEnd == .milliseconds(200))
        for task in live { #expect(try await value(of: task).status == 200) }
        let a = transport.records.filter { $0.host == hostA }
        #expect(a.first?.start == .zero, "the live host started at once, beside the dead one")
    }

    @Test("without the rule (one source) a refused host is retried with backoff as before")
    func defaultRetries() async throws {
        let clock = VirtualFetchClock()
        let transport = ScriptedTransport(clock: clock, latency: .milliseconds(1)) { call in
            .fail(HTTPTransportError.couldNotConnect(url: call.request.url, message: "Connection refused"))
        }
        let fetcher = makeFetcher(transport, clock: clock, policy: Self.policy(givesUp: false))
        let result = await outcome(of: clock.spawn { try await fetcher.send(HTTPRequest(url: "https://dead.example/")) })
        guard case .failure(let error) = result, case .gaveUp(_, let attempts, _, _)? = error as? FetchError else {
            Issue.record("expected gaveUp, got \(result)")
            return
        }
        #expect(attempts == 5 && transport.records.count == 5)
        let again = await outcome(of: clock.spawn { try await fetcher.send(HTTPRequest(url: "https://dead.example/2")) })
        if case .failure(let error) = again, case .hostDown? = error as? FetchError { Issue.record("remembered as down without the rule") }
    }

    @Test("a host that answered keeps its retries when it refuses later, and Retry-After is still honoured", .tags(.realTime))
    func liveHostKeepsPoliteness() async throws {
        let clock = VirtualFetchClock()
        let transport = ScriptedTransport(clock: clock, latency: .milliseconds(1)) { call in
            switch call.request.url {
            case "https://a.example/flaky":
                return call.indexForURL < 2
                    ? .fail(HTTPTransportError.couldNotConnect(url: call.request.url, message: "Connection refused"))
                    : .status(200)
            case "https://a.example/busy":
                return call.indexForURL == 0 ? .status(503, headers: [HTTPHeader("Retry-After", "3")]) : .status(200)
            default:
                return .status(200)
            }
        }
        let fetcher = makeFetcher(transport, clock: clock, policy: Self.policy())
        #expect(try await clock.run { try await fetcher.send(HTTPRequest(url: "https://a.example/")) }.status == 200)
        #expect(try await clock.run { try await fetcher.send(HTTPRequest(url: "https://a.example/flaky")) }.status == 200)
        #expect(transport.records.filter { $0.url.hasSuffix("/flaky") }.count == 3)
        let before = clock.now
        #expect(try await clock.run { try await fetcher.send(HTTPRequest(url: "https://a.example/busy")) }.status == 200)
        let busy = transport.records.filter { $0.url.hasSuffix("/busy") }
        #expect(busy.count == 2)
        if busy.count == 2 { #expect(busy[1].start - busy[0].end >= .seconds(3)) }
        #expect(clock.now - before >= .seconds(3))
    }
}
