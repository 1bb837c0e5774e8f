import BookRuleLibrary
import Foundation
import Testing
@testable import bookrule

@Suite("bookrule download's progress display")
struct DownloadProgressDisplayTests {
    static let names = ["1": "a.mp3", "2": "b.jpg"]

    @Test("A rate that is not a finite Int64 is shown as none instead of trapping in the conversion")
    func unrepresentableRates() {
        #expect(DownloadProgressDisplay.wholeBytes(2305.7) == 2305)
        for rate in [Double.infinity, -.infinity, .nan, 1e30] {
            #expect(DownloadProgressDisplay.wholeBytes(rate) == nil)
            let line = DownloadProgressDisplay.json(.progress(id: "1", MediaDownloadProgress(receivedBytes: 1, totalBytes: nil,
                                                                                              bytesPerSecond: rate)), name: "a.mp3")
            #expect(line.contains("\"bytesPerSecond\":0"))
        }
    }

    @Test("on a terminal: one live line per active download, redrawn in place; finished ones leave a message")
    func liveLines() {
        let terminal = Terminal.capture()
        let display = DownloadProgressDisplay(terminal: terminal, live: true, names: Self.names)
        display.handle(.started(id: "1", resumingAt: 0))
        display.handle(.started(id: "2", resumingAt: 1024))
        display.handle(.progress(id: "1", MediaDownloadProgress(receivedBytes: 512 << 10, totalBytes: 1 << 20, bytesPerSecond: 1_048_576)))
        display.handle(.completed(id: "2", path: "/tmp/b.jpg", bytes: 2048, alreadyPresent: false))
        display.result("/tmp/b.jpg")
        display.finish()
        let errors = terminal.errors
        #expect(errors.contains("0 B  a.mp3\n"))
        #expect(errors.contains("1 KiB  b.jpg\n"))
        #expect(errors.contains("\u{1B}[2A\r\u{1B}[J"))  // both live lines taken back before a redraw
        #expect(errors.contains(" 50.0% 512 KiB / 1.0 MiB  1.0 MiB/s  a.mp3\n"))
        #expect(errors.contains("saved /tmp/b.jpg (2 KiB)\n"))
        #expect(terminal.output == "/tmp/b.jpg\n")
        // At the end the live block is cleared: the last thing written takes back the one remaining line.
        #expect(errors.hasSuffix("\u{1B}[1A\r\u{1B}[J"))
    }

    @Test("not on a terminal: plain lines only, no escape sequences, no per-chunk progress")
    func plainLines() {
        let terminal = Terminal.capture()
        let display = DownloadProgressDisplay(terminal: terminal, live: false, names: Self.names)
        display.handle(.started(id: "1", resumingAt: 3 << 20))
        display.handle(.progress(id: "1", MediaDownloadProgress(receivedBytes: 4 << 20, totalBytes: nil, bytesPerSecond: 0)))
        display.handle(.restarted(id: "1", reason: "the file changed on the server"))
        display.handle(.paused(id: "1", MediaDownloadProgress(receivedBytes: 5 << 20, totalBytes: 8 << 20, bytesPerSecond: 0)))
        #expect(terminal.errors == """
            resuming a.mp3 at 3.0 MiB
            restarting a.mp3 from byte 0: the file changed on the server
            paused a.mp3 at 5.0 MiB of 8.0 MiB

            """)
        #expect(!terminal.errors.contains("\u{1B}"))
    }

    @Test("--json: one JSON object per event on stdout, nothing on stderr")
    func jsonLines() throws {
        let terminal = Terminal.capture()
        let display = DownloadProgressDisplay(terminal: terminal, live: true, json: true, names: Self.names)
        display.handle(.progress(id: "1", MediaDownloadProgress(receivedBytes: 10, totalBytes: 20, bytesPerSecond: 5)))
        display.handle(.failed(id: "2", .httpStatus(url: "http://h/b.jpg", status: 404)))
        display.result("/ignored")
        let lines = terminal.output.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(String(lines[0]) == #"{"bytesPerSecond":5,"event":"progress","id":"1","name":"a.mp3","receivedBytes":10,"totalBytes":20}"#)
        let failed = try JSONDecoder().decode([String: String].self, from: Data(lines[1].utf8))
        #expect(failed["event"] == "failed" && failed["error"]?.contains("404") == true)
        #expect(terminal.errors.isEmpty)
    }
}
