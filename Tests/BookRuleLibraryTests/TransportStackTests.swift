import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleLibrary
import BookRuleJSON
import BookRuleDocument
import BookRuleScript
import BookRuleHTTP
import BookRuleEngine
import TestSupport

@Suite("The transport stack every command builds")
struct TransportStackTests {
    @Test func anOfflineStackAnswersFromSavedPagesThenTheReplayAndHasNoFetcher() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var recording = HARRecording()
        recording.append(
            request: HTTPRequest(url: "https://site.test/replayed"),
            response: HTTPResponse(url: "https://site.test/replayed", status: 200, headers: [], body: Array("from the HAR".utf8)),
            startedAt: Date(timeIntervalSince1970: 0), duration: .milliseconds(5))
        try recording.write(to: directory + "/site.har")
        let answers = Locked<[String]>([])
        let stack = try TransportStack.offline(
            pages: [SavedPage(url: "https://site.test/saved", body: Array("saved".utf8), file: "saved.html")],
            harPath: directory + "/site.har",
            observers: TransportStack.Observers(answers: { exchange in answers.withLock { $0.append(exchange.description) } }))
        #expect(stack.fetcher == nil)
        #expect(try await stack.transport.send(HTTPRequest(url: "https://site.test/saved")).body == Array("saved".utf8))
        #expect(try await stack.transport.send(HTTPRequest(url: "https://site.test/replayed")).body == Array("from the HAR".utf8))
        await #expect(throws: (any Error).self) { try await stack.transport.send(HTTPRequest(url: "https://site.test/other")) }
        #expect(answers.withLock { $0 }.prefix(2) == [
            "saved GET https://site.test/saved -> 200, 5 B", "replayed GET https://site.test/replayed -> 200, 12 B",
        ])
    }

    @Test func aLiveStackGivesEverySourceTheOneFetcherAndItsOwnPacing() throws {
        let stack = TransportStack.live(hostStatePath: nil)
        let fetcher = try #require(stack.fetcher)
        #expect(stack.transport as? PoliteFetcher === fetcher)
        let source = try loadSource("""
        {"bookSourceUrl": "https://site.test", "bookSourceName": "s", "concurrentRate": "often"}
        """)
        let wrapped = stack.transport(for: source)
        #expect(wrapped.warnings.count == 1 && wrapped.warnings[0].contains("concurrentRate \"often\" ignored"))
        let recorded = stack.recording()
        #expect(recorded.fetcher === fetcher)
        #expect(recorded.recorder != nil && recorded.transport is RecordingTransport)
    }

    @Test func aHostStateThatCannotBeOpenedIsAWarningAndPacingGoesOn() throws {
        let warnings = Locked<[String]>([])
        let file = try scratchDirectory() + "/not-a-directory"
        try LocalFile.writeAtomically(Array("x".utf8), to: file)
        let stack = TransportStack.live(
            hostStatePath: file + "/hosts.sqlite",
            observers: TransportStack.Observers(warnings: { warning in warnings.withLock { $0.append(warning) } }))
        #expect(stack.fetcher != nil)
        #expect(warnings.withLock { $0.count } == 1)
    }
}
