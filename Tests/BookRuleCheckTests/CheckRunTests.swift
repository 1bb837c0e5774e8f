import BookRuleLocking
import BookRuleJSON
import BookRuleDocument
import BookRuleRules
import BookRuleHTTP
import BookRuleEngine
import BookRuleLibrary
import BookRuleCheck
import Foundation
import Testing
import TestSupport

/// A transport that never answers (until cancelled), like a site that accepts the connection and goes quiet.
private struct HangingTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await Task.sleep(for: .seconds(3600))
        throw CancellationError()
    }
}

@Suite("CheckRun: fixtures, records, snapshots and time bounds for many sources", .timeLimit(.minutes(2 * TestTime.scale)))
struct CheckRunTests {
    let root = SharedCorpus.repositoryRoot

    @Test("one source that hangs times out without stalling the others", .tags(.realTime))
    func hangingSource() async throws {
        let fine = try #require(try BookSource.load(contentsOf: "\(root)/Sources-json/example-gbk.json").first)
        let stuck = try #require(try BookSource.load(contentsOf: "\(root)/Sources-json/example-utf8.json").first)
        let fixture = CheckFixture(directory: "\(root)/Fixtures/example-gbk")
        let replay = try HARReplayTransport(contentsOf: fixture.harPath)
        let run = CheckRun(mode: .live, timeout: .seconds(2), jobs: 2, live: { source in
            SourceTransport(plain: source.url == stuck.url ? HangingTransport() as any HTTPTransport : replay)
        })
        let clock = ContinuousClock()
        let start = clock.now
        let reports = await run.run([CheckRun.Target(source: stuck, fixture: CheckFixture(directory: "stuck")),
                                     CheckRun.Target(source: fine, fixture: fixture)])
        #expect(reports.count == 2)
        #expect(reports[0].steps.first?.error == "timed out after 2.0 seconds")
        #expect(reports[0].failure == .unreachable)
        #expect(reports[1].passed, "\(reports[1].steps)")
        #expect(reports[1].snapshotComparison?.matches == true)
        // The stuck source would hang for an hour; the timeout's error above is the proof, this only catches a
        // hang (30 s was once missed beside two busy compilers with the stretch off).
        #expect(clock.now - start < TestTime.bound(.seconds(120)))
    }

    @Test("record saves the fixture's site.har when every step passed, and leaves it alone when one failed")
    func recordOnlyWhenPassing() async throws {
        let scratch = try ScratchDirectory("check-run")
        let source = try #require(try BookSource.load(contentsOf: "\(root)/Sources-json/example-gbk.json").first)
        // The recorded example stands in for the live site.
        let site = try HARReplayTransport(contentsOf: "\(root)/Fixtures/example-gbk/site.har")
        let target = CheckRun.Target(source: source, fixture: CheckFixture(directory: scratch.path + "/new/fixture"))
        let recorded = await CheckRun(mode: .record, live: { _ in SourceTransport(plain: site) }).check(target)
        #expect(recorded.passed, "\(recorded.steps)")
        let replayed = await CheckRun().check(target)
        #expect(replayed.passed, "\(replayed.steps)")

        let before = try Data(contentsOf: URL(fileURLWithPath: target.fixture.harPath))
        let broken = await CheckRun(mode: .record, timeout: .seconds(1), live: { _ in SourceTransport(plain: HangingTransport()) }).check(target)
        #expect(broken.steps.last?.name == "record")
        #expect(broken.steps.last?.error?.contains("was left as it was") == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: target.fixture.harPath)) == before)
    }

    @Test("the default fixture is Fixtures/<file stem>/, with the index of a source in an array file")
    func defaultFixtureLayout() throws {
        #expect(CheckFixture(forSourceFile: "/x/Sources-json/site.json").directory == "Fixtures/site")
        #expect(CheckFixture(forSourceFile: "site.json", index: 3).harPath == "Fixtures/site/3/site.har")
        #expect(CheckFixture(forSourceFile: "site.json").snapshotPath == "Fixtures/site/expected.json")
        let scratch = try ScratchDirectory("check-run")
        let path = scratch.path + "/two.json"
        try "[{\"bookSourceName\": \"A\", \"bookSourceUrl\": \"https://a.test\"}, {\"bookSourceName\": \"B\", \"bookSourceUrl\": \"https://b.test\"}]"
            .write(toFile: path, atomically: true, encoding: .utf8)
        let (targets, unreadable) = CheckRun.Target.all(inFiles: [path, scratch.path + "/missing.json"])
        #expect(targets.map(\.fixture.directory) == ["Fixtures/two/0", "Fixtures/two/1"])
        #expect(unreadable.count == 1)
        let given = CheckRun.Target.all(inFiles: [path], fixtureDirectory: "mine").targets
        #expect(given.map(\.fixture.directory) == ["mine", "mine"])
    }

    @Test("a fixture of saved pages (pages.json, no site.har) is checked as the studio reads it")
    func savedPagesFixture() async throws {
        let scratch = try ScratchDirectory("check-run")
        for name in ["book.html", "toc.html", "chapter-1.html"] {
            try FileManager.default.copyItem(atPath: "\(root)/Fixtures/authoring/pages/\(name)", toPath: "\(scratch.path)/\(name)")
        }
        try """
        {"https://www.example.com/novel/5/": "book.html", "https://www.example.com/novel/5/all.html": "toc.html",
         "https://www.example.com/read/5/1.html": "chapter-1.html"}
        """.write(toFile: scratch.path + "/pages.json", atomically: true, encoding: .utf8)
        let source = try #require(try BookSource.load(bytes: Array("""
        {"bookSourceName": "Saved", "bookSourceUrl": "https://www.example.com",
         "ruleBookInfo": {"name": "//div[@class='book']/h1/text()", "tocUrl": "//a[@id='all-chapters']/@href"},
         "ruleToc": {"chapterList": "-//ul[@id='chapter-list']/li[a]", "chapterName": "//a/text()", "chapterUrl": "//a/@href"},
         "ruleContent": {"content": "//div[@id='chaptercontent']"}}
        """.utf8), path: "saved.json").first)
        let run = CheckRun(options: CheckOptions(bookURL: "https://www.example.com/novel/5/",
                                                 chapterURLs: ["https://www.example.com/read/5/1.html"]))
        let report = await run.check(CheckRun.Target(source: source, fixture: CheckFixture(directory: scratch.path)))
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/site.har"))
        #expect(report.steps.filter { $0.status == .failed }.isEmpty, "\(report.steps)")
        #expect(report.steps.contains { $0.name == "chapter 1" && $0.status == .passed })
    }

    @Test("a run that writes the snapshot says it wrote it; the next one says it matches")
    func snapshotWritten() async throws {
        let scratch = try ScratchDirectory("check-run")
        try FileManager.default.copyItem(atPath: "\(root)/Fixtures/example-gbk/site.har", toPath: scratch.path + "/site.har")
        let source = try #require(try BookSource.load(contentsOf: "\(root)/Sources-json/example-gbk.json").first)
        let target = CheckRun.Target(source: source, fixture: CheckFixture(directory: scratch.path))
        let first = await CheckRun(updatesSnapshots: true).check(target)
        #expect(first.snapshotComparison?.written == true)
        #expect(FileManager.default.fileExists(atPath: target.fixture.snapshotPath))
        let second = await CheckRun().check(target)
        #expect(second.snapshotComparison?.written == false)
        #expect(second.snapshotComparison?.matches == true)
        // Reports written before `written` existed still read.
        let old = #"{"path": "x/expected.json", "matches": true, "diff": []}"#
        #expect(try JSONDecoder().decode(SnapshotComparison.self, from: Data(old.utf8)).written == false)
    }
}
