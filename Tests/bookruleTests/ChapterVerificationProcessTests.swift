import Foundation
import Testing
import TestSupport

/// ChapterVerificationTests' run of the `bookrule` executable (the verification itself is tested in
/// BookRuleLibraryTests).
@Suite("fetch --verify: chapters compared across mirrors", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct ChapterVerificationTests {
    @Test("the CLI prints the report and exits 1 when a copy looks wrong")
    func command() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: 5, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: 5, style: .chinese),
                           MirrorSite(host: "127.0.0.4", chapters: 5, style: .spaced)]
        mirrors[2].decoyChapters([4])
        let folder = try temporaryDirectory()
        let library = folder + "/library.sqlite"
        let files = try mirrors.enumerated().map { try $1.sourceFile(named: "mirror\($0)", in: folder) }
        let fast = ["--delay", "0", "--failure-delay", "0", "--library", library]
        let first = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL] + fast).wait()
        #expect(first.status == 0, "\(first.output)")
        for file in files.dropFirst() {
            let switched = try await BookruleProcess(["switch", "1", file, "--yes"] + fast).wait()
            #expect(switched.status == 0, "\(switched.output)")
        }
        let back = try await BookruleProcess(["switch", "1", files[0], "--yes"] + fast).wait()
        #expect(back.status == 0, "\(back.output)")
        let run = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL, "--verify", "--sample", "5"]
                                            + fast).wait()
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("verify: 5 chapter(s) compared across 3 source(s)"), "\(run.output)")
        #expect(run.output.contains("4. 第4章 \(MirrorSite.words(4)): mirror2 gives a different text"), "\(run.output)")
        #expect(run.output.contains("verify: 1 chapter(s) with a truncated or different copy"), "\(run.output)")
    }
}
