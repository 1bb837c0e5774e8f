import BookRuleCheck
import BookRuleEngine
import BookRuleHTTP
import Foundation
import Testing
import TestSupport
@testable import bookrule

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The repository root, found from this file's path, so tests don't depend on the working directory.
let repositoryRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/bookruleTests/TestCommandTests.swift
    return parts.joined(separator: "/")
}()

func temporaryDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "bookrule-test-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("bookrule test and bookrule lint", .timeLimit(.minutes(2 * TestTime.scale)))
struct TestCommandTests {
    let root = repositoryRoot

    @Test("every example source passes offline against its recorded fixture", arguments: ["gbk", "utf8", "allinone"])
    func examplesPass(example: String) async {
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run([
            "test", "\(root)/Sources-json/example-\(example).json", "--fixtures", "\(root)/Fixtures/example-\(example)",
        ], terminal: terminal)
        #expect(status == 0, "\(terminal.output)\(terminal.errors)")
        #expect(terminal.output.hasPrefix("PASS"))
        #expect(terminal.output.contains("✓ snapshot      matches"))
    }

    @Test("test --update says it wrote the snapshot, not that it matches; the next run says it matches")
    func updateSaysWritten() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: "\(root)/Fixtures/example-gbk/site.har", toPath: "\(directory)/site.har")
        let arguments = ["test", "\(root)/Sources-json/example-gbk.json", "--fixtures", directory]
        let update = Terminal.capture()
        #expect(await BookruleCLI.run(arguments + ["--update"], terminal: update) == 0, "\(update.output)\(update.errors)")
        #expect(update.output.contains("✓ snapshot      written to \(directory)/expected.json"), "\(update.output)")
        #expect(!update.output.contains("matches"))
        let again = Terminal.capture()
        #expect(await BookruleCLI.run(arguments, terminal: again) == 0)
        #expect(again.output.contains("✓ snapshot      matches \(directory)/expected.json"))
    }

    @Test("breaking one rule in a copy of a source fails and names the rule and the step")
    func brokenRule() async throws {
        let directory = try temporaryDirectory()
        let original = try String(contentsOfFile: "\(root)/Sources-json/example-gbk.json", encoding: .utf8)
        let broken = original.replacingOccurrences(of: "dl/dt[2]/following-sibling::dd/a", with: "dl/dt[9]/following-sibling::dd/a")
        #expect(broken != original)
        try broken.write(toFile: "\(directory)/broken.json", atomically: true, encoding: .utf8)
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run([
            "test", "\(directory)/broken.json", "--fixtures", "\(root)/Fixtures/example-gbk",
        ], terminal: terminal)
        #expect(status == 1)
        let lines = terminal.output.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("FAIL") == true)
        #expect(lines.contains { $0.contains("✗ toc") })
        #expect(lines.contains { $0.contains("ruleToc.chapterList [XPath] 0 value(s) over 3 runs, 3 empty") })
        #expect(lines.contains { $0.contains("✗ chapter count > 0") })
    }

    @Test("a missing fixture is reported clearly")
    func missingFixture() async throws {
        let directory = try temporaryDirectory()
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run([
            "test", "\(root)/Sources-json/example-gbk.json", "--fixtures", "\(directory)/none",
        ], terminal: terminal)
        #expect(status == 1)
        #expect(terminal.output.contains("no fixture: \(directory)/none/site.har does not exist (record one with `bookrule test --record`, build one with `bookrule fixture add`, or give saved pages with --saved)"))
        #expect(terminal.output.contains("(could not check)"))
    }

    @Test("--json prints the reports and --junit writes JUnit XML a parser accepts")
    func jsonAndJUnit() async throws {
        let directory = try temporaryDirectory()
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run([
            "test", "\(root)/Sources-json/example-utf8.json", "--fixtures", "\(root)/Fixtures/example-utf8",
            "--json", "--junit", "\(directory)/junit.xml",
        ], terminal: terminal)
        #expect(status == 0)
        let reports = try JSONDecoder().decode([CheckReport].self, from: Data(terminal.output.utf8))
        #expect(reports.count == 1)
        #expect(reports[0].steps.map(\.name) == ["load", "search", "book info", "toc", "first chapter", "last chapter"])
        #expect(reports[0].steps.first { $0.name == "toc" }?.rules.contains { $0.field == "ruleToc.chapterList" } == true)

        let xml = try XMLDocument(contentsOf: URL(fileURLWithPath: "\(directory)/junit.xml"), options: [])
        let root = try #require(xml.rootElement())
        #expect(root.name == "testsuites")
        let suites = try xml.nodes(forXPath: "/testsuites/testsuite")
        #expect(suites.count == 1)
        let cases = try xml.nodes(forXPath: "/testsuites/testsuite/testcase")
        #expect(cases.count == 7)  // six steps and the snapshot
        #expect(try xml.nodes(forXPath: "//failure").isEmpty)
        #expect(root.attribute(forName: "tests")?.stringValue == "7")
    }

    @Test("a failing step becomes a JUnit <failure> with the broken rule in it")
    func junitFailure() {
        let report = CheckReport(
            source: "A & B", sourceURL: "https://x.test", origin: "x.json",
            steps: [StepReport(name: "toc", status: .failed, error: nil, requests: [],
                               rules: [], checks: [CheckResult(name: "chapter count > 0", passed: false, detail: "0 <chapters>")],
                               milliseconds: 12)],
            snapshot: Snapshot(), snapshotComparison: nil, milliseconds: 12)
        let xml = JUnitReport.xml([report])
        #expect(xml.contains("<testsuite name=\"A &amp; B\" tests=\"1\" failures=\"1\""))
        #expect(xml.contains("<failure message=\"chapter count &gt; 0\" type=\"rule-broke\">chapter count &gt; 0: 0 &lt;chapters&gt;</failure>"))
        #expect((try? XMLDocument(xmlString: xml, options: [])) != nil)
    }

    @Test("the summary table lines up Chinese source names by terminal columns, not characters")
    func summaryAlignsWideNames() {
        func report(_ name: String) -> CheckReport {
            CheckReport(source: name, sourceURL: "https://x.test", origin: "x.json", steps: [], snapshot: Snapshot(),
                        snapshotComparison: nil, milliseconds: 1)
        }
        let terminal = Terminal.capture()
        CheckReportPrinter.summary([report("笔趣阁"), report("abc"), report("全本小说网")], style: TextStyle(colour: false),
                                   to: terminal)
        let lines = terminal.output.split(separator: "\n").map(String.init).filter { $0.hasPrefix("PASS") }
        #expect(lines == ["PASS  笔趣阁", "PASS  abc", "PASS  全本小说网"])
        // A failed one: its "failed:" column starts at the same terminal column whatever the name.
        let failing = StepReport(name: "toc", status: .failed, error: nil, requests: [], rules: [], checks: [], milliseconds: 1)
        func failed(_ name: String) -> CheckReport {
            CheckReport(source: name, sourceURL: "https://x.test", origin: "x.json", steps: [failing], snapshot: Snapshot(),
                        snapshotComparison: nil, milliseconds: 1)
        }
        let table = Terminal.capture()
        CheckReportPrinter.summary([failed("笔趣阁"), failed("abcdef")], style: TextStyle(colour: false), to: table)
        let columns = table.output.split(separator: "\n").filter { $0.contains("failed:") }.map { line in
            DisplayWidth.columns(line[..<(line.range(of: "failed:")?.lowerBound ?? line.endIndex)])
        }
        #expect(columns.count == 2 && columns[0] == columns[1], "\(table.output)")
    }

    static let corpus = "\(repositoryRoot)/../shared/corpus/legado"

    @Test("lint gives a verdict for each of 300 corpus sources in well under 10 s of CPU time",
          .enabled(if: FileManager.default.fileExists(atPath: corpus), "the shared corpus is not beside this checkout"))
    func lintCorpus() async throws {
        let corpus = Self.corpus
        let files = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { $0.hasSuffix(".json") }.sorted()
        try #require(!files.isEmpty, "the shared corpus is missing")
        // The first files in name order hold well over 300 sources.
        let paths = files.map { "\(corpus)/\($0)" }
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The built binary in its own process, so its CPU time can be measured alone: the wall time of an
        // in-process run grew past 10 s on a loaded 2-core machine while the other tests ran beside it.
        let run = try await MeasuredProcess.run(
            BuiltProducts.bookrule, ["lint"] + paths, output: "\(directory)/out.txt")
        #expect(run.status == 1)  // most community sources use dialects bookrule does not run yet
        let output = try String(contentsOfFile: "\(directory)/out.txt", encoding: .utf8)
        let verdicts = output.split(separator: "\n").filter { $0.hasPrefix("  ok ") || $0.hasPrefix("  FAIL ") }
        #expect(verdicts.count >= 300)
        #expect(run.cpuSeconds < TestTime.seconds(10), "lint used \(run.cpuSeconds) s of CPU")
        #expect(run.wallSeconds < 120)
    }
}

/// A child process run to completion with the CPU time it used (not that of other tests' children).
struct MeasuredProcess {
    let status: Int32
    let cpuSeconds: Double
    let wallSeconds: Double

    struct MeasureError: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs `executable` with `arguments`, standard output and error to the file `output`. bash runs it and
    /// reports its children's user and system time with `times`; Foundation's Process starts bash with none
    /// of this process's other descriptors (a child holding other tests' sockets open broke their servers).
    static func run(_ executable: String, _ arguments: [String], output: String) async throws -> MeasuredProcess {
        let started = ContinuousClock.now
        // `times` prints two short lines, far below a pipe's buffer.
        let (status, report) = try await ChildProcess.output(
            "/bin/bash", ["-c", "\"$0\" \"$@\" > \"$OUT\" 2>&1; status=$?; times; exit $status", executable] + arguments,
            environment: ProcessInfo.processInfo.environment.merging(["OUT": output]) { $1 }, mergingErrors: false)
        let wall = started.duration(to: .now)
        // `times` prints the shell's own times, then its children's: "0m2.345s 0m0.120s".
        guard let children = report.split(separator: "\n").last else { throw MeasureError(description: "no times: \(report)") }
        let cpu = try children.split(separator: " ").map { field -> Double in
            let parts = field.dropLast().split(separator: "m")
            guard parts.count == 2, let minutes = Double(parts[0]), let seconds = Double(parts[1]) else {
                throw MeasureError(description: "unreadable times: \(report)")
            }
            return minutes * 60 + seconds
        }.reduce(0, +)
        return MeasuredProcess(
            status: status, cpuSeconds: cpu,
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18)
    }
}
