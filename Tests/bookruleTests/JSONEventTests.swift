import BookRule
import Foundation
import Testing
@testable import BookRuleLibrary
@testable import bookrule

/// `--json` lines are read by scripts: a count is a JSON number and a flag a JSON boolean, never their text.
@Suite("--json event lines")
struct JSONEventTests {
    /// The line's members, as the project's own parser reads them (a number stays `.number`, a flag `.bool`).
    private static func object(_ line: String) throws -> JSONObject {
        try #require(try JSONParser.parse(line).value.objectValue)
    }

    private static func isNumber(_ node: JSONNode?) -> Bool {
        if case .number = node?.value { return true }
        return false
    }

    @Test("fetch's events carry chapter numbers, counts and bytes as numbers and cancelled as a boolean")
    func fetchEventsAreTyped() throws {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .json)
        let book = StoredBook(id: 7, sourceURL: "https://a.test", sourceName: "a", url: "https://a.test/b/", name: "书",
                              author: "", intro: "", kind: "", coverURL: "", tocURL: "https://a.test/b/", variables: [:],
                              createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0),
                              chapterCount: 3, doneCount: 3, failedCount: 0)
        display.handle(.bookInfo(book, warnings: []))
        display.handle(.chapterSaved(position: 0, title: "第一章", characters: 2305))
        display.handle(.finished(DownloadSummary(book: book, fetched: 3, failures: [], missing: 0, cancelled: false,
                                                 stoppedBecause: nil, seconds: 1.5)))
        display.handle(FetchEvent(
            time: Date(timeIntervalSince1970: 0), origin: try #require(URLOrigin("https://a.test/1.html")), method: "GET",
            url: "https://a.test/1.html", attempt: 1, status: 200, bytes: 2305, wait: .milliseconds(250),
            duration: .milliseconds(20), retryReason: nil, error: nil, userAgent: "UA"))
        let lines = terminal.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        let bookLine = try Self.object(lines[0])
        #expect(bookLine["event"]?.value == .string("book") && Self.isNumber(bookLine["id"]) && bookLine["name"]?.value == .string("书"))
        #expect(lines[1].contains("\"characters\":2305") && lines[1].contains("\"number\":1"), "\(lines[1])")
        let finished = try Self.object(lines[2])
        #expect(finished["cancelled"]?.value == .bool(false), "\(lines[2])")
        #expect(Self.isNumber(finished["fetched"]) && Self.isNumber(finished["missing"]))
        #expect(lines[2].contains("\"cancelled\":false"))
        // The request line (stderr): bytes and wait are numbers; no status or retry is null, not "".
        let request = try Self.object(terminal.errors.trimmingCharacters(in: .newlines))
        #expect(terminal.errors.contains("\"bytes\":2305") && terminal.errors.contains("\"status\":200"), "\(terminal.errors)")
        #expect(Self.isNumber(request["waitSeconds"]) && request["retryReason"]?.value == .null)
    }

    @Test("download's events carry bytes as numbers and alreadyPresent as a boolean")
    func downloadEventsAreTyped() throws {
        let line = DownloadProgressDisplay.json(.completed(id: "1", path: "/tmp/a.mp3", bytes: 2305, alreadyPresent: true),
                                                name: "a.mp3")
        #expect(line.contains("\"bytes\":2305") && line.contains("\"alreadyPresent\":true"), "\(line)")
        let fields = try Self.object(line)
        #expect(Self.isNumber(fields["bytes"]) && fields["alreadyPresent"]?.value == .bool(true))
    }
}
