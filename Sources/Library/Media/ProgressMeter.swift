import BookRuleLocking
import BookRuleHTTP

/// Turns byte counts into progress values with a rate, at most ten a second.
final class ProgressMeter: Sendable {
    private struct State {
        var attemptStart = ContinuousClock.now
        var attemptOffset: Int64 = 0
        var lastTick: ContinuousClock.Instant?
    }

    private let state = Locked(State())

    /// A new attempt starts at `offset` bytes.
    func startAttempt(at offset: Int64) {
        state.withLock { state in
            state.attemptStart = .now
            state.attemptOffset = offset
        }
    }

    /// The progress for `received` bytes, or nil when the last one was reported less than 0.1 s ago.
    func tick(received: Int64, total: Int64?) -> MediaDownloadProgress? {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            if let last = state.lastTick, now - last < .milliseconds(100), received != total { return false }
            state.lastTick = now
            return true
        }
        return due ? progress(received: received, total: total) : nil
    }

    /// The progress for `received` bytes now.
    func progress(received: Int64, total: Int64?) -> MediaDownloadProgress {
        state.withLock { state in
            let seconds = (ContinuousClock.now - state.attemptStart).inSeconds
            let rate = seconds > 0 ? Double(max(0, received - state.attemptOffset)) / seconds : 0
            return MediaDownloadProgress(receivedBytes: received, totalBytes: total, bytesPerSecond: rate)
        }
    }
}
