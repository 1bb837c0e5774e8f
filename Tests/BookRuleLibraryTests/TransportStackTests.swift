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

    @Test func aSourcesTransportCarriesItsJarAndLoginAsMembersUnderAnyWrapper() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let vault = LoginVault(directory: directory + "/config")
        try vault.save(StoredLogin(header: "{\"X-Token\":\"t-1\"}"), forSource: "https://site.test")
        let site = TestSite(html: ["https://site.test/book": "<html><body>book</body></html>"])
        let source = try loadSource(#"{"bookSourceUrl": "https://site.test", "bookSourceName": "s"}"#)
        // Recorded: the recording goes under the source's login, which the source still gets as a member.
        let stack = TransportStack.over(site).withLogins(vault).recording()
        let connection = stack.transport(for: source)
        let login = try #require(connection.login)
        let jar = try #require(connection.cookies)
        #expect(login.login.header == "{\"X-Token\":\"t-1\"}")
        // A wrapper on top (a check's watch, the studio's capture) hides neither.
        let watched = connection.wrapped { ObservingTransport($0, origin: "watched", observe: { _ in }) }
        #expect(watched.login === login && watched.cookies === jar)
        let engine = SourceEngine(source: source, connection: watched)
        #expect(engine.login === login && engine.cookies === jar)
        _ = try await engine.transport.send(HTTPRequest(url: "https://site.test/book"))
        #expect(site.requests.map { $0.headers.value(for: "X-Token") } == ["t-1"])
        #expect(stack.recorder?.recording.entries.count == 1)
        // Without a login store, or over a plain transport: no login; a jar only from the stack.
        #expect(TransportStack.over(site).transport(for: source).login == nil)
        #expect(TransportStack.over(site).transport(for: source).cookies != nil)
        #expect(SourceEngine(source: source, transport: site).login == nil)
        #expect(SourceEngine(source: source, transport: site).cookies == nil)
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
