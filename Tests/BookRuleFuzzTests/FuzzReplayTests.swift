import BookRuleFuzzEntryPoints
import Foundation
import Testing

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
    func regressions(_ target: FuzzTarget) throws {
        for file in Self.inputs(Self.regressions, target) {
            let bytes = try [UInt8](Data(contentsOf: file))
            let start = ContinuousClock.now
            let violation = target.run(bytes)
            #expect(violation == nil, "\(file.lastPathComponent): \(violation ?? "")")
            // libFuzzer's hang threshold is a second; leave room for a loaded machine and debug builds.
            #expect(ContinuousClock.now - start < .seconds(3), "\(file.lastPathComponent) took too long")
        }
    }

    @Test("the seed corpus runs clean", .enabled(if: FileManager.default.fileExists(atPath: corpus.path),
                                                 "Fuzz/Corpus is absent: Fuzz/make-corpus.py writes it"),
          arguments: FuzzTarget.allCases)
    func seeds(_ target: FuzzTarget) throws {
        let files = Self.inputs(Self.corpus, target)
        try #require(!files.isEmpty, "no seeds in Fuzz/Corpus/\(target.rawValue): run Fuzz/make-corpus.py")
        let start = ContinuousClock.now
        for file in files {
            let bytes = try [UInt8](Data(contentsOf: file))
            let violation = target.run(bytes)
            #expect(violation == nil, "\(file.lastPathComponent): \(violation ?? "")")
        }
        #expect(ContinuousClock.now - start < .seconds(20), "replaying \(files.count) seeds took too long")
    }
}
