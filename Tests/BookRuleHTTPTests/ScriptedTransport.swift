import BookRuleLocking
import Foundation
@testable import BookRuleHTTP

// MARK: - A scripted site

/// What one call to the scripted transport gets.
struct Call: Sendable {
    var request: HTTPRequest
    /// How many earlier calls had the same URL.
    var indexForURL: Int
    /// How many earlier calls there were at all.
    var index: Int
    var wallClock: Date
}

enum Reply: Sendable {
    case status(Int, headers: [HTTPHeader] = [], body: [UInt8] = Array("ok".utf8))
    /// Throws `error` (a `TestTransportError`, or a transport's own such as `HTTPTransportError.couldNotConnect`).
    case fail(any Error)
}

struct TestTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A transport whose answers come from a script, taking `latency` of virtual time, recording what it saw.
final class ScriptedTransport: HTTPTransport {
    struct Record: Sendable {
        var url: String
        var host: String
        var method: String
        var userAgents: [String]
        var start: Duration
        var end: Duration
        var status: Int?
    }

    private struct State {
        var records: [Record] = []
        var inFlight: [String: Int] = [:]
        var maxInFlight: [String: Int] = [:]
        var countPerURL: [String: Int] = [:]
        var count = 0
    }

    private let clock: VirtualFetchClock
    private let latency: Duration
    private let script: @Sendable (Call) -> Reply
    private let state = Locked(State())

    init(
        clock: VirtualFetchClock, latency: Duration = .milliseconds(50),
        script: @escaping @Sendable (Call) -> Reply = { _ in .status(200) }
    ) {
        self.clock = clock
        self.latency = latency
        self.script = script
    }

    var records: [Record] { state.withLock { $0.records.sorted { ($0.start, $0.end) < ($1.start, $1.end) } } }
    var count: Int { state.withLock { $0.count } }
    func maxInFlight(_ host: String) -> Int { state.withLock { $0.maxInFlight[host] ?? 0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let host = PoliteFetcher.hostKey(request.url) ?? "?"
        let start = clock.now
        let (indexForURL, index) = state.withLock { state -> (Int, Int) in
            state.inFlight[host, default: 0] += 1
            state.maxInFlight[host] = max(state.maxInFlight[host] ?? 0, state.inFlight[host] ?? 0)
            let indexes = (state.countPerURL[request.url] ?? 0, state.count)
            state.countPerURL[request.url, default: 0] += 1
            state.count += 1
            return indexes
        }
        var sleepError: (any Error)?
        do {
            try await clock.sleep(until: start + latency)
        } catch {
            sleepError = error
        }
        let reply = script(Call(request: request, indexForURL: indexForURL, index: index, wallClock: clock.wallClock))
        var status: Int?
        if case .status(let code, _, _) = reply { status = code }
        let record = Record(
            url: request.url, host: host, method: request.method,
            userAgents: request.headers.filter { $0.name.lowercased() == "user-agent" }.map(\.value),
            start: start, end: clock.now, status: sleepError == nil ? status : nil)
        state.withLock { state in
            state.inFlight[host, default: 1] -= 1
            state.records.append(record)
        }
        if let sleepError { throw sleepError }
        switch reply {
        case .status(let code, let headers, let body):
            return HTTPResponse(url: request.url, status: code, headers: headers, body: body)
        case .fail(let error):
            throw error
        }
    }
}

/// Collects fetch events.
final class EventLog: Sendable {
    private let events = Locked<[FetchEvent]>([])
    var all: [FetchEvent] { events.withLock { $0 } }
    func record(_ event: FetchEvent) { events.withLock { $0.append(event) } }
}

// MARK: - Helpers

let hostA = "https://a.example:443"
let hostB = "https://b.example:443"

func seconds(_ value: Double) -> Duration { .seconds(value) }

/// A fetcher over `transport` on `clock`, with a fixed seed.
func makeFetcher(
    _ transport: ScriptedTransport, clock: VirtualFetchClock, policy: PolitenessPolicy = .default, seed: UInt64 = 7,
    events: EventLog? = nil
) -> PoliteFetcher {
    var handler: (@Sendable (FetchEvent) -> Void)?
    if let events {
        handler = { event in events.record(event) }
    }
    return PoliteFetcher(
        transport: transport, policy: policy, clock: clock, random: SeededRandomNumberGenerator(seed: seed),
        events: handler)
}

/// Sends requests to all `urls` at once, as tracked tasks, and waits for them all.
func sendConcurrently(
    _ fetcher: PoliteFetcher, clock: VirtualFetchClock, urls: [String]
) async throws -> [HTTPResponse] {
    let tasks = clock.holding {
        urls.map { url in clock.spawn { try await fetcher.send(HTTPRequest(url: url)) } }
    }
    var responses: [HTTPResponse] = []
    for task in tasks { responses.append(try await value(of: task)) }
    return responses
}

/// The gaps between the end of each request and the start of the next one (records in start order).
func endToStartGaps(_ records: [ScriptedTransport.Record]) -> [Duration] {
    zip(records, records.dropFirst()).map { $1.start - $0.end }
}

let fastPolicy = PolitenessPolicy(
    delay: .milliseconds(100), failureDelay: .milliseconds(100), jitter: false)
