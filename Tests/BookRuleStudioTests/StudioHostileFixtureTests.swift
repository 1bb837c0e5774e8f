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
}
