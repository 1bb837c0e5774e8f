import Foundation
import Testing
import TestSupport

@Suite("bookrule update", .serialized, .timeLimit(.minutes(2 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct UpdateCommandTests {
    static let fast = ["--delay", "0", "--failure-delay", "0", "--max-retries", "0"]

    @Test("--all fetches only the new chapters and prints the table; a failed chapter gives exit 1; no BOOK is a usage error")
    func updateAll() async throws {
        let site = try MirrorSite(host: "127.0.0.2", chapters: 6)
        let folder = try temporaryDirectory()
        let library = folder + "/library.sqlite"
        let source = try site.sourceFile(named: "mirror1", in: folder)
        let fetch = try await BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast).wait()
        #expect(fetch.status == 0, "\(fetch.output)")
        // The source file is not needed any more: the library keeps the source.
        try FileManager.default.removeItem(atPath: source)
        site.setChapters(9)
        site.failChapters([8])
        let before = site.chapterRequests.count
        let update = try await BookruleProcess(["update", "--all", "--library", library] + Self.fast).wait()
        #expect(update.status == 1, "\(update.output)")
        #expect(update.output.contains("book         new  saved  failed  missing"), "\(update.output)")
        #expect(update.output.contains("#1 \(MirrorSite.bookName)    3      2       1        1"), "\(update.output)")
        #expect(Array(site.chapterRequests.dropFirst(before)) == [7, 8, 9])

        site.failChapters([])
        let again = try await BookruleProcess(["update", "1", "--library", library] + Self.fast).wait()
        #expect(again.status == 0, "\(again.output)")
        #expect(Array(site.chapterRequests.dropFirst(before + 3)) == [8])

        let usage = try await BookruleProcess(["update", "--library", library]).wait()
        #expect(usage.status == 2)
        #expect(usage.output.contains("--all"))
    }
}
