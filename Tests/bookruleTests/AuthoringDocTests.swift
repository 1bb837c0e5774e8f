import Foundation
import Testing
import TestSupport

/// docs/authoring.md's commands, run as written: every ```sh block in order, in one bash with `set -e`, in a
/// fresh directory holding the saved pages of Fixtures/authoring/pages, with the built bookrule first on PATH.
@Suite("docs/authoring.md runs as written", .timeLimit(.minutes(2 * TestTime.scale)))
struct AuthoringDocTests {
    static func shellBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```sh" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current?.joined(separator: "\n") ?? "")
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test("every sh block of docs/authoring.md succeeds offline, ending in a passing bookrule test")
    func runDoc() async throws {
        let markdown = try String(contentsOfFile: repositoryRoot + "/docs/authoring.md", encoding: .utf8)
        let blocks = Self.shellBlocks(in: markdown)
        #expect(blocks.count >= 8)
        #expect(blocks.contains { $0.contains("bookrule try") } && blocks.contains { $0.contains("bookrule fixture add") })
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: repositoryRoot + "/Fixtures/authoring/pages", toPath: directory + "/pages")
        let script = "set -e\n" + blocks.joined(separator: "\n")
        try script.write(toFile: directory + "/doc.sh", atomically: true, encoding: .utf8)

        // No proxy or network settings could matter: nothing in the doc may fetch; make sure of it.
        let (status, text) = try await runBash(
            [directory + "/doc.sh"], in: directory,
            environment: ["http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"])
        #expect(status == 0, "\(text)")
        #expect(text.contains("div#chapter-list") || text.contains("ul#chapter-list"))
        #expect(text.contains("is read as a JSoup rule"))
        #expect(text.contains("saved GET https://www.example.com/novel/5/all.html -> 200"))
        #expect(text.contains("✓ chapter 1"))
        #expect(text.contains("✓ snapshot      matches Fixtures/mysite/expected.json"))
        #expect(FileManager.default.fileExists(atPath: directory + "/Fixtures/mysite/site.har"))
    }
}
