import BookRuleDocument
import BookRuleHTTP
import BookRuleLocking
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

    private static func wait(
        _ phase: FetchWait.Phase, url: String = "http://127.0.0.1:8791/book/1/1.html", seconds: Int = 4,
        reason: FetchWait.Reason = .retryAfter, request: Int = 1
    ) throws -> FetchWait {
        FetchWait(request: request, origin: try #require(URLOrigin(url)), phase: phase, duration: .seconds(seconds), reason: reason)
    }

    @Test("a wait note names the host and port, whole, and the bar fits the width (CJK titles count double)")
    func waitNoteFitsTheWidth() throws {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .bar, width: 90)
        display.handle(.started(total: 1_200, alreadySaved: 0, toFetch: 1_200))
        display.handle(.chapterStarted(position: 0, title: "第一章 一个很长很长很长很长很长的标题"))
        display.handle(try Self.wait(.started, seconds: 6))
        let bars = Self.bars(terminal.errors).filter { !$0.isEmpty }
        let last = try #require(bars.last)
        #expect(last.contains("(waiting 6 s for 127.0.0.1:8791: Retry-After)"))
        #expect(!last.contains("http://"))
        for bar in bars { #expect(DisplayWidth.columns(bar) <= 90) }

        // Too narrow for the note: it is left out rather than cut.
        let narrow = Terminal.capture()
        let small = ProgressDisplay(terminal: narrow, mode: .bar, width: 40)
        small.handle(.started(total: 1_200, alreadySaved: 0, toFetch: 1_200))
        small.handle(try Self.wait(.started, seconds: 6))
        let narrowBar = try #require(Self.bars(narrow.errors).last)
        #expect(!narrowBar.contains("waiting"))
        #expect(DisplayWidth.columns(narrowBar) <= 40)
    }

    @Test("a Retry-After wait shows while it happens, counts down, and goes when it ends")
    func aWaitCountsDownWhileItHappensAndGoesWhenItEnds() throws {
        let terminal = Terminal.capture()
        let clock = Locked(ContinuousClock.now)
        let display = ProgressDisplay(terminal: terminal, mode: .bar, width: 100, now: { clock.withLock { $0 } })
        display.handle(.started(total: 10, alreadySaved: 0, toFetch: 10))
        display.handle(.chapterStarted(position: 0, title: "One"))
        display.handle(try Self.wait(.started, seconds: 4))
        #expect(try #require(Self.bars(terminal.errors).last).contains("(waiting 4 s for 127.0.0.1:8791: Retry-After)"))
        clock.withLock { $0 += .milliseconds(1_500) }
        display.handle(.chapterStarted(position: 0, title: "One"))  // any redraw, as the ticker's
        #expect(try #require(Self.bars(terminal.errors).last).contains("(waiting 3 s for 127.0.0.1:8791: Retry-After)"))
        display.handle(try Self.wait(.ended, seconds: 4))
        let after = try #require(Self.bars(terminal.errors).last)
        #expect(!after.contains("waiting") && !after.contains("waited"))
        // The normal gap between requests is no news.
        display.handle(try Self.wait(.started, seconds: 0, reason: .pacing, request: 2))
        #expect(!(try #require(Self.bars(terminal.errors).last)).contains("waiting"))
    }

    @Test("in line mode a wait is one line when it starts")
    func aWaitIsALineInLineMode() throws {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .lines)
        display.handle(try Self.wait(.started, url: "https://a.example/1", seconds: 4))
        display.handle(try Self.wait(.ended, url: "https://a.example/1", seconds: 4))
        #expect(terminal.errors == "waiting 4 s for a.example:443: Retry-After\n")
    }

    @Test("the ETA comes from a smoothed rate that counts waits, and moves while a wait goes on")
    func theETAIsSmoothedAndCountsWaits() {
        var rate = ChapterRate()
        rate.start(at: 0)
        var time = 0.0
        for _ in 0..<20 {
            time += 1
            rate.chapterSaved(at: time)
        }
        #expect(rate.eta(remaining: 100, at: time) == 100)
        // A 31 s Retry-After before the next chapter: the estimate grows while it happens, not after.
        let during = rate.eta(remaining: 100, at: time + 15) ?? 0
        #expect(during > 100)
        time += 31
        rate.chapterSaved(at: time)
        let after = rate.eta(remaining: 99, at: time) ?? 0
        #expect(after > during)
        // One slow chapter moves the estimate by a tenth of the difference, not to 31 s per chapter.
        #expect(after == 99 * 4)
        // A normal pace brings it back down gradually.
        time += 1
        rate.chapterSaved(at: time)
        let next = rate.eta(remaining: 98, at: time) ?? 0
        #expect(next < after && next > 98)
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

    @Test("what follows the bar (Ctrl-C's interrupted line) starts a new line instead of being written onto it")
    func interruptStartsANewLine() {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .bar, width: 79)
        display.handle(.started(total: 10, alreadySaved: 0, toFetch: 10))
        display.handle(.chapterStarted(position: 0, title: "第一章"))
        display.endBarLine()
        terminal.error("interrupted: everything saved so far is kept")
        let lines = terminal.errors.components(separatedBy: "\n")
        let interrupted = lines.first { $0.contains("interrupted:") }
        #expect(interrupted == "interrupted: everything saved so far is kept", "\(terminal.errors.debugDescription)")
        #expect(lines.contains { $0.contains("0/10") && $0.contains("第一章") }, "the bar's last state stays on screen")
        // With no bar drawn (lines mode) nothing is added.
        let plain = Terminal.capture()
        let lineDisplay = ProgressDisplay(terminal: plain, mode: .lines)
        lineDisplay.handle(.chapterStarted(position: 0, title: "第一章"))
        lineDisplay.endBarLine()
        #expect(plain.errors.isEmpty)
    }
}

@Suite("--help and the README on the failure delay")
struct FailureDelayWordingTests {
    @Test("both say that a Retry-After, when given, decides the gap after a failure")
    func retryAfterDecides() throws {
        let help = OptionGroup.fetching().options.flatMap { $0.helpLines() }
        let option = try #require(help.firstIndex { $0.contains("--failure-delay") })
        #expect(help[option...].prefix(2).joined(separator: " ").contains("Retry-After decides"))
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        let row = try #require(readme.components(separatedBy: "\n").first { $0.hasPrefix("| `--failure-delay") })
        #expect(row.contains("Retry-After"))
        #expect(!readme.contains("5 s after a failure (jitter only adds)"))
    }
}
