import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleLibrary
import TestSupport

/// `bookrule` as a subprocess whose standard output and error are read as they come, so a test can see what a
/// run has printed while it still runs.
private final class StreamingRun: Sendable {
    let process: Process
    private let out = Locked("")
    private let err = Locked("")

    init(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BookruleProcess.executable)
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = NSTemporaryDirectory() + "bookrule-test-state-\(getpid())"
        process.environment = environment
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        self.process = process
        let out = self.out
        let err = self.err
        stdout.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            out.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        stderr.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            err.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    var output: String { out.withLock { $0 } }
    var errors: String { err.withLock { $0 } }

    /// Waits (bounded) until `condition` holds of what was printed so far; false when the bound passed first.
    func waitUntil(seconds: Double, _ condition: (StreamingRun) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(TestTime.seconds(seconds) * 1000))
        while !condition(self) {
            if ContinuousClock.now > deadline { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// Waits (bounded) for the process to end and its pipes to drain; its exit status.
    func finish(seconds: Double = 60) async throws -> Int32 {
        guard try await waitUntil(seconds: seconds, { !$0.process.isRunning }) else {
            kill(process.processIdentifier, SIGKILL)
            throw TestFailure("bookrule did not finish within \(seconds) s")
        }
        // What the handlers have not read yet.
        _ = try await waitUntil(seconds: 1) { _ in false }
        return process.terminationStatus
    }
}

/// Issue #32 item 1: one dead source must not stall a search or a fetch over many sources.
@Suite("A dead source in a collection is tried once and holds nothing back", .serialized,
       .timeLimit(.minutes(3 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct DeadSourceTests {
    /// Three mirrors on 127.0.0.2-4, and `aa-dead.json`: a source whose host (127.0.0.6) refuses connections
    /// (a port bound, noted and closed).
    static func collection() throws -> (mirrors: [MirrorSite], deadOrigin: String, folder: String) {
        let mirrors = try ["127.0.0.2", "127.0.0.3", "127.0.0.4"].map { try MirrorSite(host: $0, chapters: 12) }
        let folder = try temporaryDirectory()
        for (index, mirror) in mirrors.enumerated() { _ = try mirror.sourceFile(named: "mirror\(index + 1)", in: folder) }
        let port = try LoopbackListener.closedPort(host: "127.0.0.6")
        let deadOrigin = "http://127.0.0.6:\(port)"
        try mirrors[0].sourceJSON(named: "dead").replacingOccurrences(of: mirrors[0].baseURL, with: deadOrigin)
            .write(toFile: folder + "/aa-dead.json", atomically: true, encoding: .utf8)
        return (mirrors, deadOrigin, folder)
    }

    /// Adds `held.json`: a source whose host takes the connection and answers nothing until the test stops it.
    static func addHeldSource(to folder: String, like mirror: MirrorSite) throws -> FaultServer {
        let held = try FaultServer(host: "127.0.0.7", lifetime: 120) { _, _ in .slow(delay: 100, then: .status(500)) }
        try mirror.sourceJSON(named: "held").replacingOccurrences(of: mirror.baseURL, with: held.baseURL)
            .write(toFile: folder + "/held.json", atomically: true, encoding: .utf8)
        return held
    }

    /// Requests the `--verbose` log shows going to `origin`.
    static func attempts(at origin: String, in log: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(" GET \(origin)/") }.count
    }

    @Test("search --sources: the dead source costs one attempt, the run ends at once, results print per source", .tags(.realTime))
    func search() async throws {
        let (mirrors, dead, folder) = try Self.collection()
        let started = ContinuousClock.now
        let run = try StreamingRun(["search", "镜中", "--sources", folder, "--verbose", "--delay", "0"])
        let status = try await run.finish()
        let elapsed = ContinuousClock.now - started
        #expect(status == 0, "\(run.output)\n\(run.errors)")
        // Five attempts with backoff took ~28 s before, most of it waiting, so never less on a loaded machine; one
        // refused attempt takes milliseconds of work (13.5 s of wall clock beside two busy compilers).
        #expect(elapsed < TestTime.bound(.seconds(25)), "took \(elapsed)")
        #expect(Self.attempts(at: dead, in: run.errors) == 1, "\(run.errors)")
        #expect(run.errors.contains("dead: failed (http error)"), "\(run.errors)")
        #expect(run.output.contains("dead (http error)") && run.output.contains("could not connect"), "\(run.output)")
        for index in 1...3 { #expect(run.output.contains("mirror\(index): 1 result(s) in "), "\(run.output)") }
        for mirror in mirrors { #expect(run.output.contains(mirror.bookURL)) }
        #expect(run.output.contains("1. \(MirrorSite.bookName) — \(MirrorSite.author)  (3 sources)"))
    }

    @Test("search --sources --json-lines: the live sources' lines arrive while a silent source still holds")
    func streamed() async throws {
        let (mirrors, dead, folder) = try Self.collection()
        let held = try Self.addHeldSource(to: folder, like: mirrors[0])
        let run = try StreamingRun(["search", "镜中", "--sources", folder, "--json-lines", "--verbose", "--delay", "0", "--max-retries", "0",
                                    "--source-timeout", "100"])
        let lines = { (run: StreamingRun) in run.output.split(separator: "\n").filter { $0.contains("\"event\":\"source\"") } }
        let arrived = try await run.waitUntil(seconds: 20) { lines($0).count >= 4 }
        #expect(arrived, "\(run.output)\n\(run.errors)")
        // Four sources (three mirrors, the dead one) have printed while the held one has not answered.
        #expect(run.process.isRunning)
        #expect(held.inFlight == 1)
        #expect(!run.output.contains("\"event\":\"done\""))
        let objects = lines(run).compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let deadLine = objects.first { $0["sourceName"] as? String == "dead" }
        #expect((deadLine?["failure"] as? [String: Any])?["kind"] as? String == "http error")
        #expect(Set(objects.compactMap { ($0["results"] as? [[String: Any]])?.first?["bookURL"] as? String })
                == Set(mirrors.map(\.bookURL)))
        held.stop()
        let status = try await run.finish()
        #expect(status == 0)
        let done = run.output.split(separator: "\n").last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(done?["event"] as? String == "done")
        #expect((done?["books"] as? [[String: Any]])?.first?["copies"].map { ($0 as? [Any])?.count } == 3)
        #expect((done?["failures"] as? [Any])?.count == 2)
        #expect(Self.attempts(at: dead, in: run.errors) == 1, "\(run.errors)")
    }

    @Test("fetch --search --sources --mirrors 3: starts with the sources that answered (--wait), the dead one tried once", .tags(.realTime))
    func fetch() async throws {
        let (mirrors, dead, folder) = try Self.collection()
        let held = try Self.addHeldSource(to: folder, like: mirrors[0])
        defer { held.stop() }
        let library = folder + "/library.sqlite"
        let started = ContinuousClock.now
        let run = try StreamingRun(["fetch", "--search", MirrorSite.bookName, "--sources", folder, "--mirrors", "3",
                                    "--library", library, "--verbose", "--delay", "0", "--failure-delay", "0",
                                    "--wait", "1", "--source-timeout", "100"])
        let status = try await run.finish()
        let elapsed = ContinuousClock.now - started
        #expect(status == 0, "\(run.output)\n\(run.errors)")
        // Not held for the held source's 100 s (--source-timeout) but started after --wait 1.
        #expect(elapsed < TestTime.bound(.seconds(60)), "took \(elapsed)")
        #expect(Self.attempts(at: dead, in: run.errors) == 1, "\(run.errors)")
        #expect(run.errors.contains("held: failed (timeout)") && run.errors.contains("left out"), "\(run.errors)")
        #expect(run.errors.contains("mirrors: "), "\(run.errors)")
        let store = try LibraryStore(path: library)
        let chapters = try store.chapters(bookID: 1)
        #expect(chapters.count == 12 && chapters.allSatisfy { $0.state == .done })
        #expect(try store.knownSources(bookID: 1).count == 3)
    }
}
