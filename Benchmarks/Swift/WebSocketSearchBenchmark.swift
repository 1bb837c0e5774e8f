import BookRule
import BookRuleHTTPServer
import BookRuleServe
import Foundation
import TestSupport

/// `bookrule serve`'s WebSocket search as Legado's web client runs it: a client on loopback opens
/// `/searchBook`, sends a key, and reads batches until the close, over SOURCES sources each on a host of its
/// own whose search page is replayed from memory (so the time is the server's: framing, the search, grouping,
/// JSON, not a site's). Every source finds one book all share and two of its own. Prints, per run, the time
/// to the first batch and to the close (the issue's target: the first batch within 1 s for 300 sources).
enum WebSocketSearchBenchmark {
    static let key = "bench"

    static func source(_ index: Int) -> (json: String, page: SavedPage) {
        let base = "https://s\(index).bench.test"
        let json = """
        {"bookSourceUrl": "\(base)", "bookSourceName": "bench \(index)", "searchUrl": "/search?q={{key}}",
         "ruleSearch": {"bookList": "//div[@class='book']", "name": "//a/text()", "author": "//span/text()",
                        "bookUrl": "//a/@href"}}
        """
        let books = [("共同之书", "佚名"), ("书\(index)甲", "作者\(index)"), ("书\(index)乙", "作者\(index)")].enumerated().map {
            "<div class='book'><a href='/book/\($0.offset)/'>\($0.element.0)</a><span>\($0.element.1)</span></div>"
        }.joined()
        let page = SavedPage(url: base + "/search?q=" + key, body: Array("<html><body>\(books)</body></html>".utf8),
                             contentType: "text/html; charset=utf-8", file: "memory")
        return (json, page)
    }

    static func run(sources count: Int, iterations: Int) async throws {
        let made = (0..<count).map(source)
        let sources = try made.flatMap { try BookSource.load(bytes: Array($0.json.utf8), path: "bench.json") }
        let stack = try TransportStack.offline(pages: made.map(\.page))
        let server = try HTTPServer(port: 0, webSockets: WebSocketEndpoints(
            routes: ServeSocketRoutes.legado(sources: .fixed(sources), stack: stack))) { _ in .text(404, "") }
        let port = server.port
        var firstTimes: [Double] = []
        var allTimes: [Double] = []
        var books = 0
        let clock = ContinuousClock()
        for iteration in 0...iterations {
            let client = try WebSocketWireClient(port: port)
            guard try await client.open("/searchBook") == 101 else { fail("handshake refused") }
            let start = clock.now
            try await client.write(WebSocketWireClient.text(#"{"key":"\#(key)"}"#))
            var first: Duration?
            var found = 0
            while let frame = try await client.readFrame() {
                if frame.opcode == 0x1 {
                    first = first ?? clock.now - start
                    found += frame.text.components(separatedBy: "\"bookUrl\"").count - 1
                } else if frame.opcode == 0x8 {
                    try await client.write(WebSocketWireClient.frame(0x8, Array(frame.payload.prefix(2))))
                    break
                }
            }
            let all = clock.now - start
            // The first run warms up (script-free sources, but the first parse and JSON paths).
            guard iteration > 0, let first else { continue }
            firstTimes.append(ScriptTOCBenchmark.milliseconds(first))
            allTimes.append(ScriptTOCBenchmark.milliseconds(all))
            books = found
        }
        await server.stopAwaitingWebSocketHandlers()
        guard books == 2 * count + 1 else { fail("expected \(2 * count + 1) books, got \(books)") }
        firstTimes.sort()
        allTimes.sort()
        print("bookrule websocket-search sources=\(count) books=\(books) first_batch_median_ms=\(format(firstTimes[firstTimes.count / 2]))"
              + " first_batch_max_ms=\(format(firstTimes[firstTimes.count - 1])) all_median_ms=\(format(allTimes[allTimes.count / 2]))")
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
