import BookRuleFuzzEntryPoints
import Foundation
import Testing
import TestSupport
import Synchronization

/// The fuzz targets' inputs replayed through the entry points they call, without libFuzzer: every minimized
/// input that once crashed, hung or leaked (FuzzRegressions/<target>/), and the seed corpus (Fuzz/Corpus/<target>/,
/// written by Fuzz/make-corpus.py). Under `make sanitize-address` this runs with AddressSanitizer too.
struct FuzzReplayTests {
    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let regressions = testsDirectory.appendingPathComponent("FuzzRegressions")
    static let corpus = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus")

    /// The files of `directory/<target>`, sorted (none when the directory is absent).
    static func inputs(_ directory: URL, _ target: FuzzTarget) -> [URL] {
        let folder = directory.appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test("minimized inputs that once failed run clean", arguments: FuzzTarget.allCases)
    func regressions(_ target: FuzzTarget) async throws {
        // CPU and blocking waits: on the suite's own thread, not the cooperative pool (TestSupport's
        // `offCooperativePool`), as in the two tests below.
        try await offCooperativePool { try Self.replayRegressions(target) }
    }

    static func replayRegressions(_ target: FuzzTarget) throws {
        for file in inputs(regressions, target) {
            let bytes = try [UInt8](Data(contentsOf: file))
            let start = ContinuousClock.now
            let violation = target.run(bytes)
            #expect(violation == nil, "\(file.lastPathComponent): \(violation ?? "")")
            // libFuzzer's hang threshold is a second; leave room for a loaded machine and debug builds.
            #expect(ContinuousClock.now - start < TestTime.bound(.seconds(3)), "\(file.lastPathComponent) took too long")
        }
    }

    @Test("the seed corpus runs clean", .enabled(if: FileManager.default.fileExists(atPath: corpus.path),
                                                 "Fuzz/Corpus is absent: Fuzz/make-corpus.py writes it"),
          arguments: FuzzTarget.allCases)
    func seeds(_ target: FuzzTarget) async throws {
        try await offCooperativePool { try Self.replaySeeds(target) }
    }

    static func replaySeeds(_ target: FuzzTarget) throws {
        let files = inputs(corpus, target)
        try #require(!files.isEmpty, "no seeds in Fuzz/Corpus/\(target.rawValue): run Fuzz/make-corpus.py")
        let start = ContinuousClock.now
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            let violation = target.run(bytes)
            #expect(violation == nil, "\(file.lastPathComponent): \(violation ?? "")")
        }
        // A bound for a hang, not a speed check: the script seeds took 22 s beside a release build on two cores.
        #expect(ContinuousClock.now - start < TestTime.bound(.seconds(60)), "replaying \(files.count) seeds took too long")
    }

    // Without JavaScriptCore's polling traps, an endless loop run again and again beside these seeds was, after
    // a few times, no longer stopped by the time limit (three runs of three stuck): see EngineOptions.
    @Test("the script seeds, run while another thread runs endless loops on the same runtime, all finish")
    func seedsBesideEndlessLoops() async throws {
        try await offCooperativePool { try Self.replayScriptSeedsBesideLoops() }
    }

    static func replayScriptSeedsBesideLoops() throws {
        let files = inputs(corpus, .script)
        try #require(!files.isEmpty, "no seeds in Fuzz/Corpus/script: run Fuzz/make-corpus.py")
        let loop: [UInt8] = [0] + Array("while(true){}".utf8)
        let stop = Atomic<Bool>(false)
        let loops = Atomic<Int>(0)
        Thread.detachNewThread {
            while !stop.load(ordering: .relaxed) {
                _ = FuzzTarget.script.run(loop)
                loops.add(1, ordering: .relaxed)
            }
        }
        defer { stop.store(true, ordering: .relaxed) }
        // Without polling, the first few dozen seeds were enough to be stuck behind a missed loop.
        for file in files.prefix(100) {
            let bytes = try [UInt8](Data(contentsOf: file))
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                _ = FuzzTarget.script.run(bytes)
                done.signal()
            }
            // A loop the watchdog misses runs forever and everything queued behind it waits: the bound makes
            // that a failure instead of a hung run.
            guard done.wait(timeout: .now() + 60) == .success else {
                Issue.record("\(file.lastPathComponent) never ran: an endless loop was not stopped (\(loops.load(ordering: .relaxed)) were)")
                return
            }
        }
        #expect(loops.load(ordering: .relaxed) > 0)
    }
}
