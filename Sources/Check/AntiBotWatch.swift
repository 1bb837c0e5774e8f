import BookRuleLocking
import BookRuleEngine
import BookRuleHTTP

/// A transport that looks at every answer for an anti-bot page (`AntiBotPage.detect`) on its way to the
/// engine, so a check can say "blocked" instead of "the TOC rules found no chapters" whatever the engine
/// makes of the page.
final class AntiBotWatch: HTTPTransport {
    /// One answer that was an anti-bot page.
    struct Sighting: Sendable {
        var url: String
        var page: AntiBotPage
    }

    private let upstream: any HTTPTransport
    private let sightings = Locked<[Sighting]>([])

    init(_ upstream: any HTTPTransport) {
        self.upstream = upstream
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await upstream.send(request)
        // The markers are ASCII (or UTF-8 on the pages that carry Chinese ones); a lossy decode finds them.
        let text = String(decoding: response.body.prefix(64 * 1024), as: UTF8.self)
        if let page = AntiBotPage.detect(html: text, status: response.status) {
            sightings.withLock { $0.append(Sighting(url: response.url, page: page)) }
        }
        return response
    }

    /// The sightings since the last call, emptied.
    func drain() -> [Sighting] {
        sightings.withLock { list in
            defer { list = [] }
            return list
        }
    }
}
