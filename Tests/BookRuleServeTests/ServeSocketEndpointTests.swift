import BookRuleEngine
import BookRuleHTTP
import BookRuleHTTPServer
import BookRuleLibrary
import BookRuleLocking
@testable import BookRuleServe
import Testing
import TestSupport

@Suite("The Legado endpoints' bounds and formats", .timeLimit(.minutes(2 * TestTime.scale)))
struct ServeSocketEndpointTests {
    @Test(.tags(.realTime)) func aClientThatSendsNoRequestIsClosedWith1008() async throws {
        let search = SearchBookSocket(sources: .fixed([]), stack: try TransportStack.offline(pages: []), requestSeconds: 0.3)
        let server = try LegadoSocketSite.server(routes: ["/searchBook": { await search.serve($0) }])
        let port = server.port
        let client = try WebSocketWireClient(port: port)
        #expect(try await client.open("/searchBook") == 101)
        let started = ContinuousClock.now
        #expect(try await client.framesUntilEnd().map(\.closeCode) == [1008])
        // Ended by the socket's 0.3 s request deadline, not by the server's 10 s one (the next that would end it).
        #expect(ContinuousClock.now - started < TestTime.bound(.seconds(9)))
        await server.stopAwaitingWebSocketHandlers()
    }

    @Test func aClientThatLeavesMidSearchCancelsIt() async throws {
        let slow = try MirrorSite(host: "127.0.0.4", chapters: 1, delay: 20)
        let stack = TransportStack.live(hostStatePath: nil)
        let search = SearchBookSocket(sources: .fixed([try loadSource(slow.sourceJSON(named: "slow"))]), stack: stack,
                                      options: .init(timeout: .seconds(60)))
        let ended = Locked(false)
        let server = try LegadoSocketSite.server(routes: ["/searchBook": { session in
            await search.serve(session)
            ended.withLock { $0 = true }
        }])
        let port = server.port
        do {
            let client = try WebSocketWireClient(port: port)
            #expect(try await client.open("/searchBook") == 101)
            try await client.write(WebSocketWireClient.text(#"{"key":"镜"}"#))
            try await eventually("the site was asked") { slow.server.records.contains { $0.path == "/search" } }
        }
        // The client is gone (its socket closed); the search ends long before the site's 20 s answer.
        try await eventually("the handler ended", seconds: 5) { ended.withLock { $0 } }
        await server.stopAwaitingWebSocketHandlers()
    }

    @Test func legadosBookTypeBitsForEachSourceType() {
        #expect(LegadoBook.bookType(sourceType: BookSourceType.text.rawValue) == 8)
        #expect(LegadoBook.bookType(sourceType: BookSourceType.audio.rawValue) == 32)
        #expect(LegadoBook.bookType(sourceType: BookSourceType.image.rawValue) == 64)
        #expect(LegadoBook.bookType(sourceType: BookSourceType.file.rawValue) == 136)
    }

    @Test func aResultsVariablesAndTheSourcesOrderGoIntoTheEntity() throws {
        let source = try loadSource(#"{"bookSourceUrl": "https://a.test", "bookSourceName": "A", "customOrder": 12, "bookSourceType": 1}"#)
        let result = SearchResult(name: "书", kind: "玄幻,完本", bookURL: "https://a.test/b/1", coverURL: "https://a.test/c.jpg",
                                  variables: ["id": "7"])
        let json = LegadoSearchBook(result: result, source: source, time: 1_700_000_000_000, respondTime: 42).json
        guard case .object(let entity) = json else {
            Issue.record("not an object: \(json)")
            return
        }
        #expect(entity["originOrder"]?.value == .number("12") && entity["type"]?.value == .number("32"))
        #expect(entity["originName"]?.value == .string("A") && entity["origin"]?.value == .string("https://a.test"))
        #expect(entity["variable"]?.value == .string(#"{"id":"7"}"#))
        #expect(entity["kind"]?.value == .string("玄幻,完本") && entity["coverUrl"]?.value == .string("https://a.test/c.jpg"))
        #expect(entity["respondTime"]?.value == .number("42") && entity["time"]?.value == .number("1700000000000"))
        #expect(entity["chapterWordCount"]?.value == .number("-1"))
    }

    @Test func theDebugLogsTimeStampIsLegadosMinutesSecondsMilliseconds() {
        #expect(SourceDebugLog.stamp(.zero) == "[00:00.000]")
        #expect(SourceDebugLog.stamp(.milliseconds(62_345)) == "[01:02.345]")
        #expect(SourceDebugLog.stamp(.seconds(3600 + 5)) == "[00:05.000]")
        let log = SourceDebugLog(start: .now - .milliseconds(1500))
        #expect(log.line("x").hasPrefix("[00:01.5"))
        #expect(log.line("", showTime: false) == "")
    }
}
