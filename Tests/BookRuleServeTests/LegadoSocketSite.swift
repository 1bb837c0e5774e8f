import BookRuleEngine
import BookRuleHTTP
import BookRuleHTTPServer
import BookRuleLibrary
import BookRuleServe
import TestSupport

/// Two mirrors of a generated book on loopback hosts of their own, the sources that read them, and a
/// server with Legado's WebSocket routes over them, every request through one polite fetcher.
struct LegadoSocketSite {
    let mirrors: [MirrorSite]
    let sources: [BookSource]
    let server: HTTPServer
    let port: UInt16

    /// A source on the first mirror that reads each result's newest chapter as its name: a second book.
    static func chapterNamedSource(_ mirror: MirrorSite) -> String {
        mirror.sourceJSON(named: "chapters as names")
            .replacingOccurrences(of: "\"bookSourceUrl\": \"\(mirror.baseURL)\"", with: "\"bookSourceUrl\": \"\(mirror.baseURL)/names\"")
            .replacingOccurrences(of: "\"name\": \"//a/text()\"", with: "\"name\": \"//span[@class='last']/text()\"")
            .replacingOccurrences(of: "\"searchUrl\": \"/search?q={{key}}\"", with: "\"searchUrl\": \"\(mirror.baseURL)/search?q={{key}}\"")
            .replacingOccurrences(of: "\"bookUrl\": \"//a/@href\"", with: "\"bookUrl\": \"//a/@href\", \"intro\": \"//span[@class='author']/text()\"")
    }

    /// A source whose site refuses connections: its search fails.
    static let unreachableSource = """
    {"bookSourceUrl": "http://127.0.0.1:9", "bookSourceName": "nobody home", "searchUrl": "/search?q={{key}}",
     "customOrder": 7,
     "ruleSearch": {"bookList": "//div", "name": "//a/text()", "bookUrl": "//a/@href"}}
    """

    /// The sessions' limits, their close time stretched with the test scale.
    static let limits = WebSocketLimits(closeSeconds: TestTime.seconds(5))

    /// A server on a free loopback port serving `routes`; its handshake deadline stretches with the test scale
    /// (a loaded machine can pause a client for seconds).
    static func server(routes: [String: WebSocketEndpoints.Handler]) throws -> HTTPServer {
        try HTTPServer(port: 0, requestSeconds: TestTime.seconds(10), webSockets: WebSocketEndpoints(routes: routes, limits: limits)) { _ in
            .text(404, "not a WebSocket endpoint")
        }
    }

    init(chapters: Int = 3) throws {
        mirrors = try [MirrorSite(host: "127.0.0.2", chapters: chapters, style: .arabic),
                       MirrorSite(host: "127.0.0.3", chapters: chapters, style: .chinese)]
        sources = try [loadSource(mirrors[0].sourceJSON(named: "mirror A")), loadSource(Self.unreachableSource),
                       loadSource(mirrors[1].sourceJSON(named: "mirror B")), loadSource(Self.chapterNamedSource(mirrors[0]))]
        var policy = PolitenessPolicy.default
        policy.delay = .milliseconds(20)
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        let stack = TransportStack.live(policy: policy, hostStatePath: nil)
        server = try Self.server(routes: ServeSocketRoutes.legado(sources: .fixed(sources), stack: stack))
        port = server.port
    }

    /// Opens `path`, sends `request`, and returns the text messages until the server closes, with its code.
    func exchange(_ path: String, _ request: String) async throws -> (messages: [String], closeCode: UInt16?) {
        let client = try WebSocketWireClient(port: port)
        guard try await client.open(path) == 101 else { throw TestFailure("handshake refused") }
        try await client.write(WebSocketWireClient.text(request))
        let frames = try await client.framesUntilEnd()
        return (frames.filter { $0.opcode == 0x1 }.map(\.text), frames.last { $0.opcode == 0x8 }?.closeCode)
    }
}
