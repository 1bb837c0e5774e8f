import Foundation
import Testing
@testable import BookRuleLibrary
import TestSupport

@Suite("bookrule switch and sources", .serialized, .timeLimit(.minutes(2 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct SwitchCommandTests {
    static let fast = ["--delay", "0", "--failure-delay", "0", "--max-retries", "0"]

    @Test("switch reports the alignment and changes nothing without --yes; with it the book moves and keeps its text")
    func switching() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 30, style: .arabic)
        let second = try MirrorSite(host: "127.0.0.3", chapters: 32, style: .chinese)
        let folder = try temporaryDirectory()
        let library = folder + "/library.sqlite"
        let one = try first.sourceFile(named: "mirror1", in: folder)
        let two = try second.sourceFile(named: "mirror2", in: folder)
        let fetch = try await BookruleProcess(["fetch", "--source", one, first.bookURL, "--library", library] + Self.fast).wait()
        #expect(fetch.status == 0, "\(fetch.output)")

        let dry = try await BookruleProcess(["switch", "1", two, "--library", library] + Self.fast).wait()
        #expect(dry.status == 0, "\(dry.output)")
        #expect(dry.output.contains("matched    30 (30 by title, 0 by position, 0 by chapter number only)"), "\(dry.output)")
        #expect(dry.output.contains("new        2"))
        #expect(dry.output.contains("unmatched  0"))
        #expect(dry.output.contains("dry run: nothing changed"))
        #expect(try LibraryStore(path: library).book(id: 1)?.sourceURL == first.baseURL)

        let yes = try await BookruleProcess(["switch", "1", two, "--yes", "--library", library] + Self.fast).wait()
        #expect(yes.status == 0, "\(yes.output)")
        #expect(yes.output.contains("30 saved chapter(s) kept their text, 2 new to fetch"))
        let store = try LibraryStore(path: library)
        #expect(try store.book(id: 1)?.url == second.bookURL)
        #expect(try store.text(bookID: 1, url: second.baseURL + "/book/1/5.html") == MirrorSite.text(5))
        let before = second.chapterRequests
        #expect(before.isEmpty)
        let rest = try await BookruleProcess(["fetch", "--source", two, second.bookURL, "--library", library] + Self.fast).wait()
        #expect(rest.status == 0, "\(rest.output)")
        #expect(second.chapterRequests == [31, 32])

        let sources = try await BookruleProcess(["sources", "1", "--check", "--library", library] + Self.fast).wait()
        #expect(sources.status == 0, "\(sources.output)")
        #expect(sources.output.contains("* mirror2  \(second.bookURL)  (32 entries, latest: \(MirrorSite.title(32, style: .chinese)))"), "\(sources.output)")
        #expect(sources.output.contains("  mirror1  \(first.bookURL)  (30 entries"))
    }

    @Test("a book the new source does not list is an error naming --book-url; a bad BOOK is a usage error")
    func notFound() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 3)
        let folder = try temporaryDirectory()
        let library = folder + "/library.sqlite"
        let one = try first.sourceFile(named: "mirror1", in: folder)
        _ = try await BookruleProcess(["fetch", "--source", one, first.bookURL, "--library", library] + Self.fast).wait()
        let other = try FaultServer(host: "127.0.0.3") { _, _ in .ok("<html><body><div id='results'></div></body></html>") }
        try first.sourceJSON(named: "empty").replacingOccurrences(of: first.baseURL, with: other.baseURL)
            .write(toFile: folder + "/empty.json", atomically: true, encoding: .utf8)
        let run = try await BookruleProcess(["switch", "1", folder + "/empty.json", "--library", library] + Self.fast).wait()
        #expect(run.status == 1)
        #expect(run.output.contains("--book-url"))
        let bad = try await BookruleProcess(["switch", "nope", one, "--library", library]).wait()
        #expect(bad.status == 2)
    }
}
