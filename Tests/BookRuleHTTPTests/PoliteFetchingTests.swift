import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

/// The polite fetcher over the real libcurl transport, measured by a loopback server: the handful of
/// real-time checks; the virtual-clock suite covers pacing and backoff in detail.
@Suite("Polite fetching on loopback", .timeLimit(.minutes(1 * TestTime.scale)))
struct PoliteFetchingTests {
    func fetcher(delay: Duration = .milliseconds(50), events: (@Sendable (FetchEvent) -> Void)? = nil) -> PoliteFetcher {
        var policy = PolitenessPolicy.default
        policy.delay = delay
        policy.failureDelay = delay
        policy.backoffBase = .milliseconds(50)
        return PoliteFetcher(transport: CurlTransport(configuration: .init(totalTimeout: TestTime.bound(.seconds(30)))),
                             policy: policy, events: events)
    }

    @Test("serial mode: never two requests in flight to one host, and two hosts proceed in parallel")
    func serialPerHostParallelAcrossHosts() async throws {
        let first = try FaultServer { _, _ in .slow(delay: 0.1, then: .ok("a")) }
        let second = try FaultServer { _, _ in .slow(delay: 0.1, then: .ok("b")) }
        defer {
            first.stop()
            second.stop()
        }
        let fetcher = fetcher(delay: .milliseconds(20))
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<6 {
                let server = index % 2 == 0 ? first : second
                group.addTask { try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/page/\(index)")).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(first.records.count == 3 && second.records.count == 3)
        #expect(first.maxInFlight == 1)
        #expect(second.maxInFlight == 1)
        // Each host's requests are back to back with at least the delay between them…
        for server in [first, second] {
            let times = server.records.sorted { $0.arrivedAt < $1.arrivedAt }
            for (earlier, later) in zip(times, times.dropFirst()) {
                #expect(later.arrival - (earlier.finish ?? earlier.arrival) >= .milliseconds(20))
            }
        }
        // …while the two hosts were served at the same time.
        let a = first.records.map(\.arrival).min(), b = second.records.map(\.arrival).min()
        let aEnd = first.records.compactMap(\.finish).max(), bEnd = second.records.compactMap(\.finish).max()
        if let a, let b, let aEnd, let bEnd {
            #expect(a < bEnd && b < aEnd, "the two hosts' request windows should overlap")
        } else {
            Issue.record("missing timestamps")
        }
    }

    @Test("no request carries a library User-Agent, and the UA changes after a 503")
    func userAgents() async throws {
        let server = try FaultServer { request, index in
            request.path == "/busy" && index == 0 ? .status(503, retryAfter: "0") : .ok("ok")
        }
        defer { server.stop() }
        let fetcher = fetcher()
        _ = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/first"))
        _ = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/busy"))
        let agents = server.records.map { $0.request.header("User-Agent") ?? "" }
        #expect(agents.count == 3)
        for agent in agents {
            #expect(agent.hasPrefix("Mozilla/5.0"))
            for library in ["curl", "Foundation", "CFNetwork", "python", "urllib", "libcurl"] {
                #expect(!agent.localizedCaseInsensitiveContains(library))
            }
        }
        #expect(agents[0] == agents[1], "one UA per host session")
        #expect(agents[2] != agents[1], "rotated after the 503")
    }

    @Test("503 with Retry-After: 1 pauses the host for at least a second; 404 is asked once")
    func retryAfterAndNotFound() async throws {
        let server = try FaultServer { request, index in
            switch request.path {
            case "/busy": return index == 0 ? .status(503, retryAfter: FaultServer.retryAfter(seconds: 1)) : .ok("ok")
            default: return .status(404)
            }
        }
        defer { server.stop() }
        let fetcher = fetcher()
        let response = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/busy"))
        #expect(response.status == 200)
        let busy = server.requests(matching: "/busy")
        #expect(busy.count == 2)
        if busy.count == 2, let finished = busy[0].finish {
            #expect(busy[1].arrival - finished >= .milliseconds(950))
        }
        let missing = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/missing"))
        #expect(missing.status == 404)
        #expect(server.requests(matching: "/missing").count == 1)
    }

    @Test("a redirect to file: and a redirect loop fail with clear errors; an oversized body is cut", .tags(.realTime))
    func unsafeAnswers() async throws {
        let server = try FaultServer { request, _ in
            switch request.path {
            case "/passwd": return .redirect(location: "file:///etc/passwd")
            case "/a": return .redirect(location: "/b")
            case "/b": return .redirect(location: "/a")
            default: return .huge(bytes: 4 << 20, chunked: true)
            }
        }
        defer { server.stop() }
        var policy = PolitenessPolicy.default
        policy.delay = .milliseconds(10)
        let fetcher = PoliteFetcher(transport: CurlTransport(configuration: .init(totalTimeout: TestTime.bound(.seconds(30)), maxBodyBytes: 1 << 20)),
                                    policy: policy)
        await #expect { try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/passwd")) } throws: { error in
            "\(error)".contains("only http and https")
        }
        await #expect { try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/a")) } throws: { error in
            "\(error)".contains("redirect")
        }
        await #expect { try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/huge")) } throws: { error in
            "\(error)".contains("1048576") || "\(error)".contains("1 MiB") || "\(error)".lowercased().contains("too large")
        }
    }

    @Test("every request is reported as an event with host, status, bytes and wait")
    func events() async throws {
        let server = try FaultServer { _, _ in .ok("hello") }
        defer { server.stop() }
        let log = EventLog()
        let fetcher = fetcher(events: { log.record($0) })
        _ = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/one"))
        _ = try await fetcher.send(HTTPRequest(url: "\(server.baseURL)/two"))
        let events = log.all
        #expect(events.count == 2)
        #expect(events.allSatisfy { $0.status == 200 && $0.bytes == 5 })
        #expect(events.last.map { $0.wait >= .milliseconds(45) } == true)
        #expect(events.first?.description.contains("127.0.0.1") == true)
    }
}
