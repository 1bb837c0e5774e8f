import BookRuleLocking
import BookRuleHTTP

/// Passes requests on and keeps every answer, so the studio can show the page a step read.
struct CapturingTransport: HTTPTransport {
    let upstream: any HTTPTransport
    private let answers = Answers()

    init(upstream: any HTTPTransport) {
        self.upstream = upstream
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await upstream.send(request)
        answers.append(request, response)
        return response
    }

    /// The answers so far, in order.
    var exchanges: [(request: HTTPRequest, response: HTTPResponse)] { answers.all }

    private final class Answers: Sendable {
        private let list = Locked<[(request: HTTPRequest, response: HTTPResponse)]>([])

        func append(_ request: HTTPRequest, _ response: HTTPResponse) {
            list.withLock { $0.append((request, response)) }
        }

        var all: [(request: HTTPRequest, response: HTTPResponse)] { list.withLock { $0 } }
    }
}
