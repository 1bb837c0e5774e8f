import Foundation
import Testing
import TestSupport

/// Check sits beside Library, not above it (docs/architecture.md): checking a source needs neither SQLite nor
/// libzip.
@Suite("Check's place among the layers")
struct CheckLayerTests {
    @Test("Check neither imports Library nor lists it among its dependencies in Package.swift")
    func checkDoesNotDependOnLibrary() throws {
        let root = SharedCorpus.repositoryRoot
        let directory = root + "/Sources/Check"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".swift") }
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOfFile: "\(directory)/\(file)", encoding: .utf8)
            #expect(!text.contains("import BookRuleLibrary"), "\(file) imports BookRuleLibrary")
        }
        let manifest = try String(contentsOfFile: root + "/Package.swift", encoding: .utf8)
        let start = try #require(manifest.range(of: "name: \"BookRuleCheck\""))
        let end = try #require(manifest.range(of: "path: \"Sources/Check\"", range: start.upperBound..<manifest.endIndex))
        let target = manifest[start.upperBound..<end.lowerBound]
        #expect(target.contains("\"BookRuleEngine\""))
        #expect(!target.contains("\"BookRuleLibrary\""))
    }
}
