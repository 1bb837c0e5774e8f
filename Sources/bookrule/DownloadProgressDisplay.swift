#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BookRule
import Foundation

/// Shows `bookrule download` progress on stderr: on a terminal, one live line per active download redrawn in
/// place (ANSI cursor moves) under the permanent messages; otherwise one plain line per event that matters; or,
/// with `--json`, every event as a JSON line on stdout.
final class DownloadProgressDisplay: Sendable {
    private let terminal: Terminal
    private let live: Bool
    private let json: Bool
    private let names: [String: String]
    private let state = Locked(State())

    private struct State {
        var active: [String: MediaDownloadProgress] = [:]
        var order: [String] = []
        var drawnLines = 0
        var lastDraw: ContinuousClock.Instant?
    }

    /// `names` maps task ids to the names shown.
    init(terminal: Terminal, live: Bool, json: Bool = false, names: [String: String]) {
        self.terminal = terminal
        self.live = live && !json
        self.json = json
        self.names = names
    }

    func handle(_ event: MediaDownloadEvent) {
        let name = names[event.id] ?? event.id
        if json {
            terminal.print(Self.json(event, name: name))
            return
        }
        switch event {
        case .queued:
            break
        case .started(let id, let offset):
            state.withLock { state in
                if state.active[id] == nil { state.order.append(id) }
                state.active[id] = MediaDownloadProgress(receivedBytes: offset, totalBytes: nil, bytesPerSecond: 0)
            }
            if !live { terminal.error(offset > 0 ? "resuming \(name) at \(Self.size(offset))" : "downloading \(name)") }
            redraw(force: true)
        case .progress(let id, let progress):
            state.withLock { $0.active[id] = progress }
            redraw(force: false)
        case .restarted(_, let reason):
            message("restarting \(name) from byte 0: \(reason)")
        case .retrying(_, let attempt, let reason):
            message("retrying \(name) (attempt \(attempt)): \(reason)")
        case .paused(let id, let progress):
            remove(id)
            let total = progress.totalBytes.map { " of \(Self.size($0))" } ?? ""
            message("paused \(name) at \(Self.size(progress.receivedBytes))\(total)")
        case .completed(let id, let path, let bytes, let alreadyPresent):
            remove(id)
            message(alreadyPresent ? "already complete: \(path) (\(Self.size(bytes)))" : "saved \(path) (\(Self.size(bytes)))")
        case .failed(let id, let error):
            remove(id)
            message("failed \(name): \(error)")
        }
    }

    /// Prints a line of results on stdout, above the live lines when they share the terminal (nothing in JSON
    /// mode, where the `completed` event carries the path).
    func result(_ line: String) {
        if json { return }
        guard live else {
            terminal.print(line)
            return
        }
        state.withLock { state in
            terminal.errorRaw(Self.clear(state.drawnLines))
            state.drawnLines = 0
            terminal.print(line)
            terminal.errorRaw(block(&state))
        }
    }

    /// Clears the live lines (at the end of the run).
    func finish() {
        guard live else { return }
        let text = state.withLock { state -> String in
            defer { state.drawnLines = 0 }
            return Self.clear(state.drawnLines)
        }
        if !text.isEmpty { terminal.errorRaw(text) }
    }

    private func remove(_ id: String) {
        state.withLock { state in
            state.active[id] = nil
            state.order.removeAll { $0 == id }
        }
    }

    /// A permanent line, printed above the live block.
    private func message(_ text: String) {
        guard live else {
            terminal.error(text)
            return
        }
        let output = state.withLock { state -> String in
            var output = Self.clear(state.drawnLines) + text + "\n"
            output += block(&state)
            return output
        }
        terminal.errorRaw(output)
    }

    private func redraw(force: Bool) {
        guard live else { return }
        let output = state.withLock { state -> String? in
            let now = ContinuousClock.now
            if !force, let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
            return Self.clear(state.drawnLines) + block(&state)
        }
        if let output { terminal.errorRaw(output) }
    }

    /// The live lines, one per active download; records how many were drawn.
    private func block(_ state: inout State) -> String {
        state.lastDraw = .now
        let width = Self.columns()
        var text = ""
        for id in state.order {
            guard let progress = state.active[id] else { continue }
            let name = names[id] ?? id
            var line = ""
            if let fraction = progress.fraction {
                line += String(format: "%5.1f%% ", fraction * 100)
            }
            line += Self.size(progress.receivedBytes)
            if let total = progress.totalBytes { line += " / " + Self.size(total) }
            if let rate = Self.wholeBytes(progress.bytesPerSecond), rate > 0 { line += "  " + Self.size(rate) + "/s" }
            line += "  " + name
            text += DisplayWidth.prefix(line, columns: width) + "\n"
        }
        state.drawnLines = state.order.filter { state.active[$0] != nil }.count
        return text
    }

    /// Moves the cursor up over `lines` drawn lines and clears from there to the end of the screen.
    private static func clear(_ lines: Int) -> String {
        lines > 0 ? "\u{1B}[\(lines)A\r\u{1B}[J" : ""
    }

    /// A rate as whole bytes, nil when it is not a finite number an Int64 holds (converting one would trap).
    static func wholeBytes(_ rate: Double) -> Int64? {
        rate.isFinite ? Int64(exactly: rate.rounded(.down)) : nil
    }

    /// One JSON line for `event`: `event`, `id`, `name`, and the event's fields.
    static func json(_ event: MediaDownloadEvent, name: String) -> String {
        var fields: [String: JSONValue] = ["id": .string(event.id), "name": .string(name)]
        func progress(_ value: MediaDownloadProgress) {
            fields["receivedBytes"] = ProgressDisplay.number(value.receivedBytes)
            if let total = value.totalBytes { fields["totalBytes"] = ProgressDisplay.number(total) }
            fields["bytesPerSecond"] = ProgressDisplay.number(Self.wholeBytes(value.bytesPerSecond) ?? 0)
        }
        switch event {
        case .queued:
            fields["event"] = .string("queued")
        case .started(_, let offset):
            fields["event"] = .string("started")
            fields["resumingAt"] = ProgressDisplay.number(offset)
        case .progress(_, let value):
            fields["event"] = .string("progress")
            progress(value)
        case .restarted(_, let reason):
            fields["event"] = .string("restarted")
            fields["reason"] = .string(reason)
        case .retrying(_, let attempt, let reason):
            fields["event"] = .string("retrying")
            fields["attempt"] = ProgressDisplay.number(attempt)
            fields["reason"] = .string(reason)
        case .paused(_, let value):
            fields["event"] = .string("paused")
            progress(value)
        case .completed(_, let path, let bytes, let alreadyPresent):
            fields["event"] = .string("completed")
            fields["path"] = .string(path)
            fields["bytes"] = ProgressDisplay.number(bytes)
            fields["alreadyPresent"] = .bool(alreadyPresent)
        case .failed(_, let error):
            fields["event"] = .string("failed")
            fields["error"] = .string(error.description)
        }
        return ProgressDisplay.json(fields)
    }

    /// `1.5 MiB`, `320 KiB`, `12 B`.
    static func size(_ bytes: Int64) -> String {
        let value = Double(bytes)
        let kibibyte = 1024.0
        if value >= kibibyte * kibibyte * kibibyte { return String(format: "%.2f GiB", value / (kibibyte * kibibyte * kibibyte)) }
        if value >= kibibyte * kibibyte { return String(format: "%.1f MiB", value / (kibibyte * kibibyte)) }
        if value >= kibibyte { return String(format: "%.0f KiB", value / kibibyte) }
        return "\(bytes) B"
    }

    private static func columns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) - 1 }
        return 79
    }
}
