import Foundation
import Testing
import TestSupport

/// MirrorFetchTests' run of the `bookrule` executable (BookFetch's mirrors are tested in BookRuleLibraryTests).
@Suite("fetch --mirrors: chapters split among sources on different hosts", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct MirrorFetchTests {
    @Test("bookrule fetch --mirrors 2 after a switch uses the old source's host too",
          .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first"))
    func command() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 12, style: .arabic)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 12, style: .chinese)
        let folder = try temporaryDirectory()
        let library = folder + "/library.sqlite"
        let one = try first.sourceFile(named: "mirror1", in: folder)
        let two = try second.sourceFile(named: "mirror2", in: folder)
        let fast = ["--delay", "0.02", "--failure-delay", "0", "--max-retries", "0", "--library", library]
        #expect(try await BookruleProcess(["fetch", "--source", one, first.bookURL, "--to", "1"] + fast).wait().status == 0)
        #expect(try await BookruleProcess(["switch", "1", two, "--yes"] + fast).wait().status == 0)
        let run = try await BookruleProcess(["fetch", "--source", two, second.bookURL, "--mirrors", "2"] + fast).wait()
        #expect(run.status == 0, "\(run.output)")
        #expect(!first.chapterRequests.dropFirst().isEmpty)
        #expect(!second.chapterRequests.isEmpty)
        #expect((first.chapterRequests.dropFirst() + second.chapterRequests).sorted() == Array(2...12))
        let bad = try await BookruleProcess(["fetch", "--source", two, second.bookURL, "--mirrors", "0"] + fast).wait()
        #expect(bad.status == 2)
    }
}
