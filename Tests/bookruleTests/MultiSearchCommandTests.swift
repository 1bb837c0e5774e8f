import Foundation
import Testing
@testable import BookRuleLibrary
import TestSupport

@Suite("bookrule search --sources: many sources at once", .serialized, .timeLimit(.minutes(2 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct MultiSearchCommandTests {
    static let fast = ["--delay", "0", "--failure-delay", "0", "--max-retries", "0"]

    /// Three mirrors on 127.0.0.2-4 and a broken source (its host answers 500), in one folder.
    static func setUp() throws -> (mirrors: [MirrorSite], broken: FaultServer, folder: String) {
        let mirrors = try ["127.0.0.2", "127.0.0.3", "127.0.0.4"].map { try MirrorSite(host: $0, chapters: 12) }
        let broken = try FaultServer(host: "127.0.0.5") { _, _ in .status(500) }
        let folder = try temporaryDirectory()
        for (index, mirror) in mirrors.enumerated() { _ = try mirror.sourceFile(named: "mirror\(index + 1)", in: folder) }
        try mirrors[0].sourceJSON(named: "broken").replacingOccurrences(of: mirrors[0].baseURL, with: broken.baseURL)
            .write(toFile: folder + "/broken.json", atomically: true, encoding: .utf8)
        try "not json".write(toFile: folder + "/zz-unreadable.json", atomically: true, encoding: .utf8)
        return (mirrors, broken, folder)
    }

    @Test("the book is listed once with its three sources; the broken source is named with its kind")
    func text() async throws {
        let (mirrors, _, folder) = try Self.setUp()
        let run = try await BookruleProcess(["search", "镜中", "--sources", folder] + Self.fast).wait()
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("1. \(MirrorSite.bookName) — \(MirrorSite.author)  (3 sources)"), "\(run.output)")
        for mirror in mirrors { #expect(run.output.contains(mirror.bookURL)) }
        #expect(run.output.contains("failures: 1 http error"))
        #expect(run.output.contains("broken (http error)"))
        #expect(run.output.contains("warning: ") && run.output.contains("zz-unreadable.json"))
        #expect(run.output.contains("searched 4 source(s)"))
    }

    @Test("--json gives the books with their copies and the failures; several paths and the single --source form")
    func json() async throws {
        let (mirrors, _, folder) = try Self.setUp()
        let files = (1...3).map { folder + "/mirror\($0).json" }
        let run = try await BookruleProcess(["search", "镜中", files[0], "--sources", files[1], "--sources", files[2], "--json"] + Self.fast).wait()
        #expect(run.status == 0, "\(run.output)")
        let start = run.output.firstIndex(of: "{") ?? run.output.startIndex
        let report = try JSONSerialization.jsonObject(with: Data(run.output[start...].utf8)) as? [String: Any]
        let books = report?["books"] as? [[String: Any]] ?? []
        #expect(books.count == 1)
        let copies = books.first?["copies"] as? [[String: Any]] ?? []
        #expect(Set(copies.compactMap { $0["bookURL"] as? String }) == Set(mirrors.map(\.bookURL)))
        #expect((report?["failures"] as? [Any])?.isEmpty == true)

        let single = try await BookruleProcess(["search", "--source", files[0], "镜中"] + Self.fast).wait()
        #expect(single.status == 0, "\(single.output)")
        #expect(single.output.contains("1 result(s)"))
    }

    @Test("every source failing exits 1; no keyword or no readable source is a usage error")
    func failures() async throws {
        let (_, _, folder) = try Self.setUp()
        let broken = try await BookruleProcess(["search", "镜中", "--sources", folder + "/broken.json"] + Self.fast).wait()
        #expect(broken.status == 1)
        let none = try await BookruleProcess(["search", "--sources", folder]).wait()
        #expect(none.status == 2)
        #expect(none.output.contains("KEYWORD"))
        let missing = try await BookruleProcess(["search", "x", "--sources", folder + "/nope"]).wait()
        #expect(missing.status == 2)
        #expect(missing.output.contains("no such file or folder"))
    }
}
