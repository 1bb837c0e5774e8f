// How much politeness costs beyond what the server asks (issue #11, defect 6): a 1,200-chapter book
// (1,204 requests) from a site that answers 10% of requests, at random, with `503` and `Retry-After: 2`,
// through `PoliteFetcher` with its default policy (0.5 s delay, jitter on). On a virtual clock, so the
// 15 minutes of waiting take milliseconds. Prints elapsed ÷ the time the server asked for (every success's
// 0.5 s delay plus every 503's 2 s); target ≤ 1.2.
import BookRule
import Foundation
import Synchronization

enum PolitenessBenchmark {
    /// Virtual time for one caller at a time: sleeping moves the clock to the deadline at once.
    final class SteppingClock: FetchClock {
        private let time = Mutex(Duration.zero)
        var now: Duration { time.withLock { $0 } }
        var wallClock: Date { Date(timeIntervalSince1970: 1_800_000_000 + now.inSecondsValue) }
        func sleep(until deadline: Duration) async throws {
            time.withLock { $0 = max($0, deadline) }
        }
    }

    /// The site: 10% of answers are `503 Retry-After: 2`, drawn from a fixed seed.
    final class FlakySite: HTTPTransport {
        private let random = Mutex(SeededRandomNumberGenerator(seed: 2026))
        private let counts = Mutex((successes: 0, unavailable: 0))
        var totals: (successes: Int, unavailable: Int) { counts.withLock { $0 } }

        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            let unavailable = random.withLock { $0.next() % 10 == 0 }
            counts.withLock { unavailable ? ($0.unavailable += 1) : ($0.successes += 1) }
            if unavailable {
                return HTTPResponse(url: request.url, status: 503, headers: [HTTPHeader("Retry-After", "2")])
            }
            return HTTPResponse(url: request.url, status: 200, body: Array("chapter".utf8))
        }
    }

    static func run(requests: Int) async throws {
        let clock = SteppingClock()
        let site = FlakySite()
        let policy = PolitenessPolicy.default
        let fetcher = PoliteFetcher(
            transport: site, policy: policy, clock: clock, random: SeededRandomNumberGenerator(seed: 7))
        for index in 0..<requests {
            let response = try await fetcher.send(HTTPRequest(url: "https://novel.test/book/1/\(index).html"))
            guard response.status == 200 else { fail("request \(index) ended with HTTP \(response.status)") }
        }
        let (successes, unavailable) = site.totals
        // Each success but the last is followed by the delay; each 503 by its Retry-After.
        let asked = Double(successes - 1) * policy.delay.inSecondsValue + Double(unavailable) * 2
        let elapsed = clock.now.inSecondsValue
        let ratio = elapsed / asked
        let verdict = ratio <= 1.2 ? "PASS" : "FAIL"
        print("politeness requests=\(successes + unavailable) retries=\(unavailable) "
            + "elapsed_s=\(String(format: "%.1f", elapsed)) asked_s=\(String(format: "%.1f", asked)) "
            + "ratio=\(String(format: "%.3f", ratio)) (target <= 1.2: \(verdict))")
    }
}

extension Duration {
    var inSecondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}
