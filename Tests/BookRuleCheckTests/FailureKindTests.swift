import Foundation
import Testing
import BookRuleCheck
import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON
import TestSupport

/// A site where every page is the same answer.
private struct OneAnswerSite: HTTPTransport {
    let status: Int
    let body: String
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(url: request.url, status: status, headers: [HTTPHeader("Content-Type", "text/html")], body: Array(body.utf8))
    }
}

/// A site that cannot be reached.
private struct UnreachableSite: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw HTTPTransportError.connectionFailed(url: request.url, message: "Could not resolve host: x.test")
    }
}

private let sourceJSON = """
{"bookSourceName": "S", "bookSourceUrl": "https://x.test",
 "ruleBookInfo": {"name": "//h1/text()"},
 "ruleToc": {"chapterList": "//dd/a", "chapterName": "text", "chapterUrl": "href"},
 "ruleContent": {"content": "//div[@id='c']"}}
"""

@Suite("Failures are classed: unreachable, blocked, HTTP error, a rule broke, could not check")
struct FailureKindTests {
    func check(_ transport: any HTTPTransport) async throws -> CheckReport {
        let source = try loadSource(sourceJSON)
        return await SourceCheck(source: source, transport: transport, options: CheckOptions(bookURL: "https://x.test/b/1/")).run()
    }

    @Test("engine and transport errors map to their kinds")
    func classify() {
        #expect(FailureKind.classify(EngineError.transport(url: "u", error: HTTPTransportError.timedOut(url: "u", seconds: 1))) == .unreachable)
        #expect(FailureKind.classify(EngineError.transport(url: "u", error: FetchError.breakerOpen(host: "h", failures: 10))) == .unreachable)
        #expect(FailureKind.classify(EngineError.transport(url: "u", error: FetchError.gaveUp(url: "u", attempts: 5, lastStatus: 503, lastError: nil))) == .httpError)
        #expect(FailureKind.classify(EngineError.httpStatus(url: "u", status: 404)) == .httpError)
        #expect(FailureKind.classify(EngineError.missingRule(field: "ruleToc.chapterList")) == .ruleBroke)
        #expect(FailureKind.classify(EngineError.transport(url: "u", error: HARReplayError.notRecorded(method: "GET", url: "u", body: nil))) == .couldNotCheck)
        #expect(FailureKind.classify(EngineError.transport(url: "u", error: SavedPageError.notSaved(method: "GET", url: "u", body: nil, saved: []))) == .couldNotCheck)
        #expect(FailureKind.classify(CancellationError()) == .couldNotCheck)
    }

    @Test("a 200 Cloudflare page is 'blocked by an anti-bot page', not 'no chapters'")
    func blocked() async throws {
        let report = try await check(OneAnswerSite(status: 200, body: "<html><head><title>Just a moment...</title></head><body></body></html>"))
        #expect(report.failure == .blocked)
        let book = try #require(report.steps.first { $0.name == "book info" })
        #expect(book.failure == .blocked)
        #expect(book.checks.contains { $0.name == "no anti-bot pages" && $0.detail?.contains("https://x.test/b/1/ is an anti-bot challenge page") == true })
    }

    @Test("no answer is unreachable, an error status is an HTTP error, a page the rules miss is a broken rule")
    func otherKinds() async throws {
        #expect(try await check(UnreachableSite()).failure == .unreachable)
        #expect(try await check(OneAnswerSite(status: 500, body: "oops")).failure == .httpError)
        let broken = try await check(OneAnswerSite(status: 200, body: "<html><body><h1>Book</h1>" + String(repeating: "<p>text</p>", count: 80) + "</body></html>"))
        #expect(broken.failure == .ruleBroke)
        #expect(broken.steps.first { $0.name == "toc" }?.failure == .ruleBroke)
    }

    @Test("the kind is written to --json reports and read back; reports from before kinds count as broken rules")
    func jsonRoundTrip() async throws {
        let report = try await check(UnreachableSite())
        let json = try JSONWriter.string([report], style: .pretty)
        #expect(json.contains("\"failure\" : \"unreachable\"") || json.contains("\"failure\": \"unreachable\""))
        let decoded = try JSONDecoder().decode([CheckReport].self, from: Data(json.utf8))
        #expect(decoded == [report])
        #expect(decoded[0].failure == .unreachable)
        var old = report
        for index in old.steps.indices { old.steps[index].failure = nil }
        #expect(old.failure == .ruleBroke)
    }

    @Test("--chapter checks the chapters given: one saved chapter passes without a first or last")
    func chapterGiven() async throws {
        let chapter = "<html><body><div id='c'>" + String(repeating: "正文。", count: 40) + "</div></body></html>"
        let site = TestSite(html: [
            "https://x.test/b/1/": "<html><body><h1>Book</h1><dl><dd><a href='1.html'>One</a></dd><dd><a href='2.html'>Two</a></dd><dd><a href='3.html'>Three</a></dd></dl></body></html>",
            "https://x.test/b/1/2.html": chapter,
        ])
        let source = try loadSource(sourceJSON)
        let report = await SourceCheck(source: source, transport: site,
                                       options: CheckOptions(bookURL: "https://x.test/b/1/", chapterURLs: ["https://x.test/b/1/2.html"])).run()
        #expect(report.passed, "\(report.steps.filter { $0.status == .failed })")
        #expect(report.steps.map(\.name) == ["load", "search", "book info", "toc", "chapter 1"])
        #expect(report.steps.last?.checks.first?.detail == "https://x.test/b/1/2.html (#2 of the TOC)")
        #expect(report.snapshot.firstChapter?.text.hasPrefix("正文。") == true)
        #expect(!site.requests.contains { $0.url.hasSuffix("1.html") || $0.url.hasSuffix("3.html") })
    }

    @Test("a chapter drawn with the page's @font-face font fails its check, naming the font")
    func webFontChapterNamed() async throws {
        let text = String(repeating: "他走进了房间。", count: 20)
        let chapter = "<html><head><style>@font-face { font-family: shuffle; src: url(/f.woff2); } #c { font-family: shuffle; }"
            + "</style></head><body><div id='c'>\(text)</div></body></html>"
        let site = TestSite(html: [
            "https://x.test/b/1/": "<html><body><h1>Book</h1><dl><dd><a href='1.html'>One</a></dd></dl></body></html>",
            "https://x.test/b/1/1.html": chapter,
        ])
        let report = try await check(site)
        let step = try #require(report.steps.first { $0.name == "first chapter" })
        let check = try #require(step.checks.first { $0.name == "text not scrambled by a web font" })
        #expect(!check.passed)
        #expect(check.detail?.contains("web font \"shuffle\" (/f.woff2)") == true)
    }

    @Test("shards split a collection: every source in exactly one, the same on every run")
    func shards() throws {
        #expect(Shard.stableHash("a") == 0xaf63_dc4c_8601_ec8c)  // FNV-1a 64 test vector
        #expect(Shard(index: 0, count: 4) == nil && Shard(index: 5, count: 4) == nil)
        let urls = (0..<200).map { "https://site\($0).test" }
        let shards = (1...4).compactMap { Shard(index: $0, count: 4) }
        for url in urls { #expect(shards.filter { $0.contains(sourceURL: url) }.count == 1) }
        let sizes = shards.map { shard in urls.filter { shard.contains(sourceURL: $0) }.count }
        #expect(sizes.allSatisfy { $0 > 25 }, "\(sizes)")
    }

    @Test("merging reports joins them in order and names sources two reports share")
    func merge() async throws {
        let directory = NSTemporaryDirectory() + "bookrule-merge-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try await check(UnreachableSite())
        var other = report
        other.sourceURL = "https://y.test"
        try JSONWriter.string([report], style: .pretty).write(toFile: directory + "/a.json", atomically: true, encoding: .utf8)
        try JSONWriter.string([other, report], style: .pretty).write(toFile: directory + "/b.json", atomically: true, encoding: .utf8)
        let merged = try CheckReportMerge.merge([directory + "/a.json", directory + "/b.json"])
        #expect(merged.reports.map(\.sourceURL) == ["https://x.test", "https://y.test", "https://x.test"])
        #expect(merged.repeated.count == 1)
        try "{}".write(toFile: directory + "/bad.json", atomically: true, encoding: .utf8)
        #expect(throws: CheckReportMerge.Failure.self) { try CheckReportMerge.merge([directory + "/bad.json"]) }
    }
}
