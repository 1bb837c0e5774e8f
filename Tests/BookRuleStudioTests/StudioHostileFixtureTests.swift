import BookRuleDocument
import BookRuleHTTP
import Foundation
import Testing
import TestSupport
@testable import BookRuleStudio

#if canImport(Glibc)
import Glibc
#endif

@Suite("Studio: a hostile fixture fails a step, never the studio")
struct StudioHostileFixtureTests {
    @Test("a FIFO or a file outside named in pages.json fails the step with its name at once, and the next step still runs")
    func fifoInIndexFailsTheStepWithoutWedgingTheStudio() async throws {
        let workspace = try StudioWorkspace()
        let source = StudioWorkspace.quoted(StudioWorkspace.sourceText)
        let fifo = workspace.fixtureDirectory + "/pipe.html"
        #expect(mkfifo(fifo, 0o600) == 0)
        let watchdog = FIFOWatchdog(fifo)
        defer { watchdog.disarm() }
        let secret = workspace.directory + "/secret.txt"
        try "SECRET".write(toFile: secret, atomically: true, encoding: .utf8)
        try """
        {"https://www.example.com/novel/5/": "pipe.html", "https://www.example.com/novel/5/all.html": "../secret.txt"}
        """.write(toFile: workspace.fixtureDirectory + "/pages.json", atomically: true, encoding: .utf8)
        let step = "{\"source\": \(source), \"step\": \"book\", \"url\": \"https://www.example.com/novel/5/\"}"
        let first = try await workspace.post("/api/step", step)
        let error = try StudioEvaluationTests.object(first)["error"] as? String ?? ""
        #expect(error.contains("pipe.html: cannot read the saved page: it is a FIFO (named pipe), not a regular file"), "\(error)")

        try FileManager.default.removeItem(atPath: fifo)
        try "<p>x</p>".write(toFile: fifo, atomically: true, encoding: .utf8)
        let second = try await workspace.post("/api/step", step)
        #expect(second.status != 503)
        let refusal = try StudioEvaluationTests.object(second)["error"] as? String ?? ""
        #expect(refusal.contains("../secret.txt: refused: it leads to "), "\(refusal)")
        #expect(!refusal.contains("SECRET"))
    }

    @Test("opening a FIFO or a sparse file over 32 MiB of the fixture directory is refused with its reason, and the next page still opens")
    func openingFIFOOrHugeFileIsRefusedWithoutWedgingTheStudio() async throws {
        let workspace = try StudioWorkspace()
        let fifo = workspace.fixtureDirectory + "/pipe.html"
        #expect(mkfifo(fifo, 0o600) == 0)
        let watchdog = FIFOWatchdog(fifo)
        defer { watchdog.disarm() }
        let huge = workspace.fixtureDirectory + "/huge.html"
        #expect(FileManager.default.createFile(atPath: huge, contents: Data("<p>".utf8)))
        #expect(truncate(huge, off_t(FixtureFile.sizeLimit) + 1) == 0)

        func open(_ file: String) async throws -> RawHTTP.Response {
            try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"\(file)\", \"url\": \"https://www.example.com/novel/5/all.html\"}")
        }
        let piped = try await open("pipe.html")
        #expect(piped.status == 403)
        let pipeError = try StudioEvaluationTests.object(piped)["error"] as? String ?? ""
        #expect(pipeError.contains("pipe.html") && pipeError.contains("not a regular file"), "\(pipeError)")

        let large = try await open("huge.html")
        #expect(large.status == 403)
        let largeError = try StudioEvaluationTests.object(large)["error"] as? String ?? ""
        #expect(largeError.contains("huge.html: cannot read: larger than 32 MiB"), "\(largeError)")

        #expect(try await open("toc.html").status == 200)
    }
}
