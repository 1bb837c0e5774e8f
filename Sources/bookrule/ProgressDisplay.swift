#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BookRule
import Foundation

/// Shows a download's progress on stderr: a live bar on a terminal (chapters done/total, rate, ETA, current
/// title, failures, the current wait while backing off), one line per chapter otherwise, or JSON lines.
final class ProgressDisplay: Sendable {
    enum Mode: Sendable {
        case bar, lines, json
    }

    private let terminal: Terminal
    private let mode: Mode
    /// The bar's width in columns; nil asks the terminal at each redraw.
    private let width: Int?
    private let state = Locked(State())

    private struct State {
        var total = 0
        var done = 0
        var fetchedThisRun = 0
        var failures = 0
        var current = ""
        var waiting: String?
        var started = ContinuousClock.now
        var barShown = false
        /// Whether chapter fetching has started; before it, the book page and TOC pages are being read.
        var chaptersStarted = false
        /// Pages answered before chapter fetching started (book page and TOC pages).
        var pagesRead = 0
    }

    init(terminal: Terminal, mode: Mode, width: Int? = nil) {
        self.terminal = terminal
        self.mode = mode
        self.width = width
    }

    /// The mode for this process: JSON when asked, a bar on a terminal (unless TERM is dumb), lines otherwise.
    static func mode(json: Bool) -> Mode {
        if json { return .json }
        return isatty(STDERR_FILENO) == 1 && ProcessEnvironment.value("TERM") != "dumb" ? .bar : .lines
    }

    func handle(_ event: DownloadEvent) {
        if mode == .json {
            emitJSON(event)
            return
        }
        switch event {
        case .bookInfo(let book, let warnings):
            line("book: \(book.name)\(book.author.isEmpty ? "" : " — \(book.author)") (#\(book.id))")
            for warning in warnings { line("warning: \(warning)") }
        case .tocMerged(let merge, let chapters, let warnings):
            line("toc: \(chapters) entries, \(merge.added) new\(merge.missingFromTOC > 0 ? ", \(merge.missingFromTOC) no longer listed (kept)" : "")")
            for warning in warnings { line("warning: \(warning)") }
        case .started(let total, let saved, let toFetch):
            state.withLock {
                $0.total = total
                $0.done = saved
                $0.started = ContinuousClock.now
                $0.chaptersStarted = true
            }
            line(toFetch == 0 ? "all \(total) chapters are already saved" : "fetching \(toFetch) of \(total) chapters (\(saved) already saved)")
        case .chapterStarted(_, let title):
            state.withLock {
                $0.current = title
                $0.waiting = nil
            }
            redraw()
        case .chapterSaved(let position, let title, let characters):
            state.withLock {
                $0.done += 1
                $0.fetchedThisRun += 1
            }
            if mode == .lines { line("saved \(position + 1) \(title) (\(characters) characters)") } else { redraw() }
        case .chapterFromOtherSource(let position, let title, let sourceName, let error):
            line("from \(sourceName): \(position + 1) \(title) (on the book's source: \(error))")
        case .chapterFailed(let position, let title, let error):
            state.withLock { $0.failures += 1 }
            line("failed \(position + 1) \(title): \(error)")
        case .coverMissing(let problem):
            line("warning: \(problem)")
        case .picturesMissing(let problems):
            for problem in problems.prefix(10) { line("warning: \(problem)") }
            if problems.count > 10 { line("warning: \(problems.count - 10) more picture(s) could not be kept") }
        case .finished:
            clearBar()
        }
    }

    /// Shows what the polite fetcher is doing: a wait before a request, or a retry.
    func handle(_ event: FetchEvent) {
        if mode == .json {
            terminal.error(Self.json(["event": "request", "host": event.host, "url": event.url,
                                      "status": event.status.map(String.init) ?? "", "bytes": String(event.bytes),
                                      "waitSeconds": String(format: "%.3f", event.wait.seconds),
                                      "retryReason": event.retryReason.map { "\($0)" } ?? ""]))
            return
        }
        let reading = state.withLock { state -> Bool in
            if !state.chaptersStarted && event.status != nil { state.pagesRead += 1 }
            return !state.chaptersStarted
        }
        if let reason = event.retryReason {
            line("retried \(event.url) after waiting \(String(format: "%.1f", event.wait.seconds)) s (\(reason))")
        } else if reading {
            redraw()
        }
        if event.wait > .seconds(2) {
            let note = String(format: "waited %.1f s for %@", event.wait.seconds, event.origin.authority)
            state.withLock { $0.waiting = note }
            redraw()
        }
    }

    private func redraw() {
        guard mode == .bar else { return }
        let text = state.withLock { state -> String in
            state.barShown = true
            if !state.chaptersStarted {
                // No chapter count yet: say what is being read instead of a 0/0 bar.
                var text = "reading the book page and TOC: \(state.pagesRead) page(s) read"
                if let waiting = state.waiting { text += " (\(waiting))" }
                return DisplayWidth.prefix(text, columns: self.width ?? Self.columns())
            }
            let elapsed = (ContinuousClock.now - state.started).seconds
            let rate = elapsed > 0 ? Double(state.fetchedThisRun) / elapsed : 0
            let remaining = state.total - state.done
            let eta = rate > 0 ? Self.clock(Double(remaining) / rate) : "--:--"
            var counts = " \(state.done)/\(state.total) \(String(format: "%.1f", rate)) ch/s ETA \(eta)"
            if state.failures > 0 { counts += " failed \(state.failures)" }
            let columns = self.width ?? Self.columns()
            // The wait note goes in whole or not at all (a note cut mid-host says nothing): the bar gives up
            // to 16 of its 24 columns for it; the title takes what is left.
            var width = 24
            if let waiting = state.waiting {
                let note = " (\(waiting))"
                let needed = 2 + DisplayWidth.columns(counts) + DisplayWidth.columns(note)
                width = min(24, max(8, columns - needed))
                if width + needed <= columns { counts += note } else { width = 24 }
            }
            let fraction = state.total > 0 ? Double(state.done) / Double(state.total) : 0
            let filled = min(width, Int(fraction * Double(width)))
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            return DisplayWidth.prefix("[\(bar)]" + counts + " " + state.current, columns: columns)
        }
        terminal.errorRaw("\r\u{1B}[K" + text)
    }

    private func clearBar() {
        let shown = state.withLock { state -> Bool in
            defer { state.barShown = false }
            return state.barShown
        }
        if shown { terminal.errorRaw("\r\u{1B}[K") }
    }

    private func line(_ text: String) {
        clearBar()
        terminal.error(text)
        redraw()
    }

    private func emitJSON(_ event: DownloadEvent) {
        let fields: [String: String]
        switch event {
        case .bookInfo(let book, _):
            fields = ["event": "book", "id": String(book.id), "name": book.name, "author": book.author, "url": book.url]
        case .tocMerged(let merge, let chapters, _):
            fields = ["event": "toc", "chapters": String(chapters), "added": String(merge.added)]
        case .started(let total, let saved, let toFetch):
            fields = ["event": "started", "total": String(total), "alreadySaved": String(saved), "toFetch": String(toFetch)]
        case .chapterStarted(let position, let title):
            fields = ["event": "chapterStarted", "number": String(position + 1), "title": title]
        case .chapterSaved(let position, let title, let characters):
            fields = ["event": "chapterSaved", "number": String(position + 1), "title": title, "characters": String(characters)]
        case .chapterFromOtherSource(let position, let title, let sourceName, let error):
            fields = ["event": "chapterFromOtherSource", "number": String(position + 1), "title": title,
                      "source": sourceName, "error": error]
        case .chapterFailed(let position, let title, let error):
            fields = ["event": "chapterFailed", "number": String(position + 1), "title": title, "error": error]
        case .coverMissing(let problem):
            fields = ["event": "coverMissing", "warning": problem.description]
        case .picturesMissing(let problems):
            fields = ["event": "picturesMissing", "count": String(problems.count),
                      "urls": problems.map(\.url).joined(separator: " ")]
        case .finished(let summary):
            fields = ["event": "finished", "fetched": String(summary.fetched), "failed": String(summary.failures.count),
                      "missing": String(summary.missing), "cancelled": String(summary.cancelled)]
        }
        terminal.print(Self.json(fields))
    }

    static func json(_ fields: [String: String]) -> String {
        (try? JSONWriter.string(fields)) ?? "{}"
    }

    private static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
            : String(format: "%d:%02d", total / 60, total % 60)
    }

    private static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) - 1 }
        return 79
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
