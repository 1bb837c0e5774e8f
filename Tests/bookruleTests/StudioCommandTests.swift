import BookRuleHTTP
import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule studio on the command line", .timeLimit(.minutes(2 * TestTime.scale)))
struct StudioCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    @Test("Bad flags are usage errors (exit 2) that say what to give")
    func usageErrors() async {
        let port = await run(["studio", "Sources-json/example-utf8.json", "--port", "70000"])
        #expect(port.status == 2 && port.errors.contains("--port takes a port number"))
        let two = await run(["studio", "a.json", "b.json"])
        #expect(two.status == 2 && two.errors.contains("at most one SOURCE.json"))
        let fixtures = await run(["studio", "--fixtures", "/nonexistent/fixture"])
        #expect(fixtures.status == 2 && fixtures.errors.contains("does not exist"))
        let help = await run(["studio", "--help"])
        #expect(help.status == 0 && help.output.contains("127.0.0.1"))
    }

    @Test("The executable, copied alone into another folder, prints the loopback URL with a 64-digit token and serves its page")
    func printsURL() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: BuiltProducts.bookrule))
        // An installed bookrule has no SwiftPM resource folder beside it: the page must be in the binary.
        // A hard link beside the build (same file system), not a copy: a copy is open for writing while it is
        // made, and a child process another test forks then inherits that descriptor, so running the copy failed
        // with ETXTBSY ("Text file busy") until the child exec'd. The linked file is never open for writing.
        let directory = repositoryRoot + "/.build/test-cache/studio-alone-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let executable = directory + "/bookrule"
        try FileManager.default.linkItem(atPath: BuiltProducts.bookrule, toPath: executable)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["studio", repositoryRoot + "/Sources-json/example-utf8.json", "--fixtures",
                             repositoryRoot + "/Fixtures/example-utf8", "--port", "0"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        let line = await firstLine(of: output.fileHandleForReading)
        let url = line.trimmingCharacters(in: .whitespacesAndNewlines)
        let match = url.wholeMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64})/)
        let parts = try #require(match, "\(url)")
        let port = try #require(Int(parts.1))
        let fetcher = CurlTransport()
        let state = try await fetcher.send(HTTPRequest(url: "http://127.0.0.1:\(port)/api/state?token=\(parts.2)"))
        #expect(state.status == 200)
        #expect(String(decoding: state.body, as: UTF8.self).contains("示例 UTF-8 站"))
        let refused = try await fetcher.send(HTTPRequest(url: "http://127.0.0.1:\(port)/api/state"))
        #expect(refused.status == 403)
        let page = try await fetcher.send(HTTPRequest(url: url))
        #expect(page.status == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("studio.js"))
    }
}
