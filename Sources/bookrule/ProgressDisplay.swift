#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BookRule
import Foundation

/// Shows a download's progress on stderr: a live bar on a terminal (chapters done/total, rate, ETA, current
/// title, failures, and a wait of the fetcher counting down while it happens), one line per chapter otherwise,
/// or JSON lines.
final class ProgressDisplay: Sendable {
    enum Mode: Sendable {
        case bar, lines, json
    }

    private let terminal: Terminal
    private let mode: Mode
    /// The bar's width in columns; nil asks the terminal at each redraw.
    private let width: Int?
    private let now: @Sendable () -> ContinuousClock.Instant
    /// Where the rate's times count from.
    private let origin: ContinuousClock.Instant
    private let state = Locked(State())

    /// Waits shorter than this are not shown (the normal gap between requests is no news).
    static let shownWait = Duration.seconds(1)

    /// A wait of the fetcher being shown, and when it is due to end.
    private struct ShownWait {
        var wait: FetchWait
        var until: ContinuousClock.Instant
    }

    private struct State {
        var total = 0
        var done = 0
        var failures = 0
        var current = ""
        /// The fetcher's waits going on now, by request.
        var waits: [Int: ShownWait] = [:]
        /// Redraws the bar every second while a wait counts down.
        var ticker: Task<Void, Never>?
        var rate = ChapterRate()
        var barShown = false
        /// Whether chapter fetching has started; before it, the book page and TOC pages are being read.
        var chaptersStarted = false
        /// Pages answered before chapter fetching started (book page and TOC pages).
        var pagesRead = 0
    }

    /// A display on `terminal`; `now` is the clock (tests pass their own).
    init(terminal: Terminal, mode: Mode, width: Int? = nil,
         now: @escaping @Sendable () -> ContinuousClock.Instant = { ContinuousClock.now }) {
        self.terminal = terminal
        self.mode = mode
        self.width = width
        self.now = now
        origin = now()
    }

    deinit {
        state.withLock { $0.ticker?.cancel() }
    }

    /// Seconds since the display was made.
    private var time: Double { (now() - origin).seconds }

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
                $0.rate.start(at: time)
                $0.chaptersStarted = true
            }
            line(toFetch == 0 ? "all \(total) chapters are already saved" : "fetching \(toFetch) of \(total) chapters (\(saved) already saved)")
        case .chapterStarted(_, let title):
            state.withLock { $0.current = title }
            redraw()
        case .chapterSaved(let position, let title, let characters):
            let time = self.time
            state.withLock {
                $0.done += 1
                $0.rate.chapterSaved(at: time)
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
            state.withLock { state in
                state.ticker?.cancel()
                state.ticker = nil
                state.waits = [:]
            }
            clearBar()
        }
    }

    /// Shows what the polite fetcher is doing: a wait before a request, or a retry.
    func handle(_ event: FetchEvent) {
        if mode == .json {
            terminal.error(Self.json(["event": .string("request"), "host": .string(event.host), "url": .string(event.url),
                                      "status": event.status.map(Self.number) ?? .null, "bytes": Self.number(event.bytes),
                                      "waitSeconds": .number(String(format: "%.3f", event.wait.seconds)),
                                      "retryReason": event.retryReason.map { .string("\($0)") } ?? .null]))
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
    }

    /// Shows a wait of the fetcher while it happens: on the bar, counting down until it ends (then it goes);
    /// as a line or a JSON line when it starts otherwise. Waits under `shownWait` are not shown.
    func handle(_ wait: FetchWait) {
        if wait.phase == .started {
            guard wait.duration >= Self.shownWait else { return }
            switch mode {
            case .json:
                terminal.error(Self.json(["event": .string("wait"), "host": .string(wait.host),
                                          "reason": .string(wait.reason.rawValue),
                                          "seconds": .number(String(format: "%.3f", wait.duration.seconds))]))
                return
            case .lines:
                line(wait.description)
                return
            case .bar:
                break
            }
        }
        guard mode == .bar else { return }
        let until = now() + wait.duration
        let changed = state.withLock { state -> Bool in
            switch wait.phase {
            case .started:
                state.waits[wait.request] = ShownWait(wait: wait, until: until)
                if state.ticker == nil { state.ticker = startTicker() }
            case .ended:
                guard state.waits.removeValue(forKey: wait.request) != nil else { return false }
                if state.waits.isEmpty {
                    state.ticker?.cancel()
                    state.ticker = nil
                }
            }
            return true
        }
        if changed { redraw() }
    }

    /// Redraws the bar once a second, so a wait counts down.
    private func startTicker() -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard !Task.isCancelled else { return }
                self?.redraw()
            }
        }
    }

    /// `waiting 4 s for HOST: Retry-After` for the wait that ends last, the seconds left rounded up.
    private func waitNote(_ state: State) -> String? {
        guard let shown = state.waits.values.max(by: { $0.until < $1.until }) else { return nil }
        let left = max(0, (shown.until - now()).seconds)
        return "waiting \(Int(left.rounded(.up))) s for \(shown.wait.origin.authority): \(shown.wait.reason)"
    }

    private func redraw() {
        guard mode == .bar else { return }
        let text = state.withLock { state -> String in
            state.barShown = true
            if !state.chaptersStarted {
                // No chapter count yet: say what is being read instead of a 0/0 bar.
                var text = "reading the book page and TOC: \(state.pagesRead) page(s) read"
                if let waiting = waitNote(state) { text += " (\(waiting))" }
                return DisplayWidth.prefix(text, columns: self.width ?? Self.columns())
            }
            let time = self.time
            let perChapter = state.rate.secondsPerChapter(at: time)
            let rate = perChapter.map { $0 > 0 ? 1 / $0 : 0 } ?? 0
            let eta = state.rate.eta(remaining: state.total - state.done, at: time).map(Self.clock) ?? "--:--"
            var counts = " \(state.done)/\(state.total) \(String(format: "%.1f", rate)) ch/s ETA \(eta)"
            if state.failures > 0 { counts += " failed \(state.failures)" }
            let columns = self.width ?? Self.columns()
            // The wait note goes in whole or not at all (a note cut mid-host says nothing): the bar gives up
            // to 16 of its 24 columns for it; the title takes what is left.
            var width = 24
            if let waiting = waitNote(state) {
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

    /// Ends the bar's line, leaving its last state on screen, so that what follows (Ctrl-C's "interrupted: …",
    /// an error) starts a line of its own instead of being written onto the bar. Nothing when no bar is shown.
    func endBarLine() {
        let shown = state.withLock { state -> Bool in
            defer { state.barShown = false }
            return state.barShown
        }
        if shown { terminal.errorRaw("\n") }
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
        let fields: [String: JSONValue]
        switch event {
        case .bookInfo(let book, _):
            fields = ["event": .string("book"), "id": Self.number(book.id), "name": .string(book.name), "author": .string(book.author),
                      "url": .string(book.url)]
        case .tocMerged(let merge, let chapters, _):
            fields = ["event": .string("toc"), "chapters": Self.number(chapters), "added": Self.number(merge.added)]
        case .started(let total, let saved, let toFetch):
            fields = ["event": .string("started"), "total": Self.number(total), "alreadySaved": Self.number(saved),
                      "toFetch": Self.number(toFetch)]
        case .chapterStarted(let position, let title):
            fields = ["event": .string("chapterStarted"), "number": Self.number(position + 1), "title": .string(title)]
        case .chapterSaved(let position, let title, let characters):
            fields = ["event": .string("chapterSaved"), "number": Self.number(position + 1), "title": .string(title),
                      "characters": Self.number(characters)]
        case .chapterFromOtherSource(let position, let title, let sourceName, let error):
            fields = ["event": .string("chapterFromOtherSource"), "number": Self.number(position + 1), "title": .string(title),
                      "source": .string(sourceName), "error": .string(error)]
        case .chapterFailed(let position, let title, let error):
            fields = ["event": .string("chapterFailed"), "number": Self.number(position + 1), "title": .string(title),
                      "error": .string(error)]
        case .coverMissing(let problem):
            fields = ["event": .string("coverMissing"), "warning": .string(problem.description)]
        case .picturesMissing(let problems):
            fields = ["event": .string("picturesMissing"), "count": Self.number(problems.count),
                      "urls": .string(problems.map(\.url).joined(separator: " "))]
        case .finished(let summary):
            fields = ["event": .string("finished"), "fetched": Self.number(summary.fetched), "failed": Self.number(summary.failures.count),
                      "missing": Self.number(summary.missing), "cancelled": .bool(summary.cancelled)]
        }
        terminal.print(Self.json(fields))
    }

    /// One JSON line of `fields`, keys sorted, counts as JSON numbers and flags as JSON booleans (scripts
    /// reading `--json` compare `"cancelled": false`, not the string `"false"`).
    static func json(_ fields: [String: JSONValue]) -> String {
        let here = SourceLocation(line: 1, column: 1)
        let members = fields.sorted { $0.key < $1.key }.map { (key: $0.key, value: JSONNode($0.value, location: here)) }
        return JSONValue.object(JSONObject(members: members)).serialized()
    }

    /// An integer as a JSON number.
    static func number<Integer: BinaryInteger>(_ value: Integer) -> JSONValue {
        .number(String(value))
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
