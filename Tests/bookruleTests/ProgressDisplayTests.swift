import BookRuleDocument
import BookRuleHTTP
import Foundation
import Testing
@testable import bookrule

@Suite("bookrule fetch's progress display")
struct ProgressDisplayTests {
    private static func event(url: String, wait: Duration, retry: FetchEvent.RetryReason? = nil) throws -> FetchEvent {
        FetchEvent(
            time: Date(timeIntervalSince1970: 0), origin: try #require(URLOrigin(url)), method: "GET", url: url,
            attempt: retry == nil ? 1 : 2, status: 200, bytes: 10, wait: wait, duration: .milliseconds(20),
            retryReason: retry, error: nil, userAgent: "UA")
    }

    /// The drawn bar states (what follows each `ESC [K`).
    private static func bars(_ errors: String) -> [String] {
        errors.components(separatedBy: "\r\u{1B}[K").dropFirst().map { $0.components(separatedBy: "\n")[0] }
    }

    @Test("a wait note names the host and port, whole, and the bar fits the width (CJK titles count double)")
    func waitNoteFitsTheWidth() throws {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .bar, width: 79)
        display.handle(.started(total: 1_200, alreadySaved: 0, toFetch: 1_200))
        display.handle(.chapterStarted(position: 0, title: "第一章 一个很长很长很长很长很长的标题"))
        display.handle(try Self.event(url: "http://127.0.0.1:8791/book/1/1.html", wait: .milliseconds(5_200)))
        let bars = Self.bars(terminal.errors).filter { !$0.isEmpty }
        let last = try #require(bars.last)
        #expect(last.contains("(waited 5.2 s for 127.0.0.1:8791)"))
        #expect(!last.contains("http://"))
        for bar in bars { #expect(DisplayWidth.columns(bar) <= 79) }

        // Too narrow for the note: it is left out rather than cut.
        let narrow = Terminal.capture()
        let small = ProgressDisplay(terminal: narrow, mode: .bar, width: 40)
        small.handle(.started(total: 1_200, alreadySaved: 0, toFetch: 1_200))
        small.handle(try Self.event(url: "http://127.0.0.1:8791/book/1/1.html", wait: .milliseconds(5_200)))
        let narrowBar = try #require(Self.bars(narrow.errors).last)
        #expect(!narrowBar.contains("waited"))
        #expect(DisplayWidth.columns(narrowBar) <= 40)
    }

    @Test("a retry line states the wait it really had and why")
    func retryLineStatesTheWait() throws {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .lines)
        display.handle(try Self.event(
            url: "https://a.example/2.html", wait: .milliseconds(2_130),
            retry: .retryAfter(status: 503, delay: .seconds(2))))
        #expect(terminal.errors == "retried https://a.example/2.html after waiting 2.1 s (HTTP 503 with Retry-After 2 s)\n")
    }
}
