#if canImport(Glibc)
import Glibc
#endif
import BookRuleHTTP
import BookRuleLocking
import Foundation
import Testing
import TestSupport
@testable import BookRuleStudio

@Suite("Studio: live steps through the polite fetcher, recorded only on request")
struct StudioLiveTests {
    @Test("A live step reads the site and leaves the fixture alone; with record, its request is added to site.har")
    func liveAndRecord() async throws {
        let page = try Data(contentsOf: URL(fileURLWithPath: StudioWorkspace.repository + "/Fixtures/authoring/pages/toc.html"))
        // A long lifetime: on a loaded machine the three steps can take longer than the default 10 s.
        let site = try LoopbackServer(maxConnections: 4, lifetime: 120) { _, _ in
            LoopbackServer.reply(200, "OK", headers: [("Content-Type", "text/html; charset=utf-8")], body: [UInt8](page))
        }
        var policy = PolitenessPolicy.default
        policy.delay = .zero
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        let workspace = try StudioWorkspace(fetcher: PoliteFetcher(transport: CurlTransport(), policy: policy))
        let origin = "http://127.0.0.1:\(site.port)"
        let source = StudioWorkspace.sourceText.replacingOccurrences(of: "https://www.example.com", with: origin)
        let har = workspace.fixtureDirectory + "/site.har"
        let before = try workspace.snapshot()

        let body = "{\"source\": \(StudioWorkspace.quoted(source)), \"step\": \"toc\", \"url\": \"\(origin)/novel/5/all.html\", \"live\": true"
        let live = try StudioEvaluationTests.object(try await workspace.post("/api/step", body + "}"))
        #expect(live["error"] == nil, "\(live)")
        #expect((live["chapterCount"] as? Int ?? 0) > 0)
        #expect(live["recorded"] as? Int == 0)
        #expect(try workspace.snapshot() == before)
        #expect(workspace.server.app.session.page(.toc)?.origin == "live")

        let recorded = try StudioEvaluationTests.object(try await workspace.post("/api/step", body + ", \"record\": true}"))
        #expect(recorded["recorded"] as? Int == 1, "\(recorded)")
        try #require(recorded["error"] == nil, "\(recorded)")
        let recording = try HARRecording.load(contentsOf: har)
        #expect(recording.entries.map(\.request.url) == ["\(origin)/novel/5/all.html"])
        // Recording the same request again replaces its entry rather than adding one.
        _ = try await workspace.post("/api/step", body + ", \"record\": true}")
        #expect(try HARRecording.load(contentsOf: har).entries.count == 1)
        #expect(site.requests.count == 3)
    }

    @Test("Stopping the studio does not wait for a step stuck on a silent site: stop returns, the step gets no answer from it")
    func stopEndsWaitingStep() async throws {
        // A site that takes the request and never answers (until the client goes, or 60 s).
        let site = try LoopbackServer(maxConnections: 1, lifetime: 150) { _, _, writer in
            _ = writer.waitForClose(seconds: 60)
        }
        let (workspace, body) = try Self.liveTOCStep(on: site)
        async let answer = workspace.post("/api/step", body)
        // The request's way to the site crosses the polite fetcher's actors on Swift's shared pool, which the
        // rest of a full run on two cores has held for over 20 s (docs/developing/testing.md): a wait for an event, bounded
        // generously, since what is tested is what stop() does once it is there.
        try await eventually("the live request reaching the site", seconds: 60) { !site.requests.isEmpty }
        #expect(site.requests.count == 1)
        // stop() returns although the site has not answered (it holds the request up to 30 s): the waiting
        // request gives up, and libmicrohttpd closes its connection (with the 503 or before it is sent).
        workspace.server.stop()
        let response = try? await answer
        #expect(response == nil || response?.status == 503, "\(response?.text ?? "")")
        #expect(site.requests.count == 1)
    }

    @Test("A step whose client disconnects is cancelled: its fetch from a silent site ends within a bound, not at 60 s", .tags(.realTime))
    func abandonedStepIsCancelled() async throws {
        let closed = Locked<Bool>(false)
        let site = try LoopbackServer(maxConnections: 1, lifetime: 90) { _, _, writer in
            if writer.waitForClose(seconds: 80) { closed.withLock { $0 = true } }
        }
        let (workspace, body) = try Self.liveTOCStep(on: site)
        let client = workspace.client
        let socket = try client.connected()
        try RawHTTP.sendAll(socket, client.request("POST", "/api/step", headers: [(StudioAccess.headerName, workspace.token)], body: body))
        #expect(await StudioServerLimitsTests.waitUntil(TestTime.bound(.seconds(20))) { !site.requests.isEmpty })
        close(socket)
        let cancelled = await StudioServerLimitsTests.waitUntil(TestTime.bound(.seconds(5))) { closed.withLock { $0 } }
        #expect(cancelled, "the site's request was still open after the studio's client left")
    }
    /// A studio fetching live with one attempt per request, and the body of a live TOC step of its example
    /// source aimed at `site`'s `/slow`.
    static func liveTOCStep(on site: LoopbackServer) throws -> (StudioWorkspace, String) {
        var policy = PolitenessPolicy.default
        policy.maxAttempts = 1
        let workspace = try StudioWorkspace(fetcher: PoliteFetcher(transport: CurlTransport(), policy: policy))
        let origin = "http://127.0.0.1:\(site.port)"
        let source = StudioWorkspace.sourceText.replacingOccurrences(of: "https://www.example.com", with: origin)
        return (workspace, "{\"source\": \(StudioWorkspace.quoted(source)), \"step\": \"toc\", \"url\": \"\(origin)/slow\", \"live\": true}")
    }
}
