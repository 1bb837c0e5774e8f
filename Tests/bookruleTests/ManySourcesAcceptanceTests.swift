import Foundation
import Testing
@testable import BookRuleLibrary
import TestSupport

/// Issue #14's acceptance run, end to end through the `bookrule` executable: three loopback mirrors
/// (127.0.0.2–.4) of one generated 1,200-chapter site, whose chapter titles differ in numerals and spacing
/// (第12章 / 第十二章 / 第 12 章), and a broken source.
@Suite("many sources: the 1,200-chapter acceptance run", .serialized, .timeLimit(.minutes(3 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct ManySourcesAcceptanceTests {
    static let chapters = 1200
    /// The source's delay, small so the run stays short; every host's gaps must still be at least this.
    /// 20 ms rather than less: the test server stamps a response's end after its write returns, so a server
    /// thread preempted there (two loaded cores) makes a gap look a few milliseconds shorter than the client kept.
    static let delay = 0.02

    /// Every gap from one response's end to the next request's arrival at `server`, in seconds.
    /// Only the requests after the first `skipping` count: the earlier steps ran with no delay, and the first
    /// request of the run under test may follow their last one as closely as that run's own delay allowed.
    static func gaps(_ server: FaultServer, skipping: Int = 0) -> [Double] {
        let records = Array(server.records.sorted { $0.arrivedAt < $1.arrivedAt }.dropFirst(skipping))
        return zip(records, records.dropFirst()).compactMap { earlier, later in
            earlier.finishedAt.map { later.arrivedAt - $0 }
        }
    }

    @Test("search groups the book once with three sources; switch aligns 1,200 titles with no mismatch; --mirrors 3 equals a single-source fetch, politely; a mirror stopped midway is covered")
    func acceptance() async throws {
        let mirrors = try [MirrorSite(host: "127.0.0.2", chapters: Self.chapters, style: .arabic),
                           MirrorSite(host: "127.0.0.3", chapters: Self.chapters, style: .chinese),
                           MirrorSite(host: "127.0.0.4", chapters: Self.chapters, style: .spaced)]
        let broken = try FaultServer(host: "127.0.0.5") { _, _ in .status(500) }
        defer { broken.stop() }
        let folder = try temporaryDirectory()
        let files = try mirrors.enumerated().map { try $1.sourceFile(named: "mirror\($0)", in: folder) }
        try mirrors[0].sourceJSON(named: "broken").replacingOccurrences(of: mirrors[0].baseURL, with: broken.baseURL)
            .write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        let fast = ["--delay", "0", "--failure-delay", "0", "--max-retries", "0"]

        // Search: one book, three sources; the broken one named with its kind.
        let search = try await BookruleProcess(["search", "镜中", "--sources", folder] + fast).wait()
        #expect(search.status == 0, "\(search.output)")
        #expect(search.output.contains("1. \(MirrorSite.bookName) — \(MirrorSite.author)  (3 sources)"), "\(search.output)")
        #expect(search.output.contains("broken (http error)"), "\(search.output)")

        // The book from mirror0 (its TOC and chapter 1), then switched through the other two and back: every
        // switch aligns all 1,200 titles by title, none by position or number only, none unmatched.
        let library = folder + "/library.sqlite"
        let fetchFirst = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL, "--to", "1",
                                                    "--library", library] + fast).wait()
        #expect(fetchFirst.status == 0, "\(fetchFirst.output)")
        for file in [files[1], files[2], files[0]] {
            let switched = try await BookruleProcess(["switch", "1", file, "--yes", "--library", library] + fast).wait()
            #expect(switched.status == 0, "\(switched.output)")
            #expect(switched.output.contains("matched    1200 (1200 by title, 0 by position, 0 by chapter number only)"),
                    "\(switched.output)")
            #expect(switched.output.contains("new        0") && switched.output.contains("unmatched  0"), "\(switched.output)")
        }

        // --mirrors 3 with the source's delay: every host serves, each host's gaps stay ≥ the delay.
        let before = mirrors.map { $0.server.records.count }
        let parallel = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL, "--mirrors", "3",
                                                  "--library", library, "--delay", String(Self.delay),
                                                  "--failure-delay", "0", "--max-retries", "0"]).wait(seconds: 120)
        #expect(parallel.status == 0, "\(parallel.output)")
        let served = mirrors.enumerated().map { $1.server.records.count - before[$0] }
        #expect(served.allSatisfy { $0 > 100 }, "\(served)")
        for (index, mirror) in mirrors.enumerated() {
            let short = Self.gaps(mirror.server, skipping: before[index]).filter { $0 < Self.delay - 0.005 }
            #expect(short.isEmpty, "\(mirror.baseURL): \(short.count) gaps under the delay, e.g. \(short.prefix(3))")
        }

        // What a single-source fetch of mirror0 gives is its generator's titles and texts (MirrorFetchTests
        // compares with a real single-source fetch on 30 chapters; a second 1,200-chapter fetch here would
        // double the test's time).
        let store = try LibraryStore(path: library)
        let listed = try store.chapters(bookID: 1)
        #expect(listed.count == Self.chapters)
        #expect(listed.map(\.title) == (1...Self.chapters).map { MirrorSite.title($0, style: .arabic) })
        var differing: [Int] = []
        for chapter in listed where try store.text(bookID: 1, url: chapter.url) != MirrorSite.text(chapter.position + 1) {
            differing.append(chapter.position + 1)
        }
        #expect(differing.isEmpty, "\(differing.prefix(10))")
        #expect(Set(listed.compactMap(\.sourceURL)) == Set(mirrors.map(\.baseURL)))

        // A third library: mirror2 stops after 50 chapters; the other two complete the book.
        let stoppedLibrary = folder + "/stopped.sqlite"
        let start = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL, "--to", "1",
                                               "--library", stoppedLibrary] + fast).wait()
        #expect(start.status == 0, "\(start.output)")
        let stopped = try LibraryStore(path: stoppedLibrary)
        for index in 1...2 {
            try stopped.recordSource(bookID: 1, source: BookSourceRecord(sourceURL: mirrors[index].baseURL, sourceName: "mirror\(index)",
                                                                         json: mirrors[index].sourceJSON(named: "mirror\(index)")),
                                     bookURL: mirrors[index].bookURL)
        }
        let already = mirrors[2].chapterRequests.count
        let stopper = Task {
            try await eventually("50 more chapters from the third mirror", seconds: 120) {
                mirrors[2].chapterRequests.count >= already + 50
            }
            mirrors[2].server.stop()
        }
        let rest = try await BookruleProcess(["fetch", "--source", files[0], mirrors[0].bookURL, "--mirrors", "3",
                                              "--library", stoppedLibrary, "--delay", String(Self.delay),
                                              "--failure-delay", "0", "--max-retries", "0"]).wait(seconds: 120)
        stopper.cancel()
        #expect(rest.status == 0, "\(rest.output)")
        let done = try stopped.chapters(bookID: 1)
        #expect(done.count == Self.chapters && done.allSatisfy { $0.state == .done })
        #expect(mirrors[2].chapterRequests.count - already < 400)
        for chapter in done {
            #expect(try stopped.text(bookID: 1, url: chapter.url) == MirrorSite.text(chapter.position + 1))
        }
    }
}
