import BookRuleLocking

/// The frames waiting to go out on one connection, in order, filled from any task or thread and emptied by
/// the server's WebSocket thread (`WebSocketLoop`), which `signal` wakes. After the close frame is queued nothing else is.
final class WebSocketOutbox: Sendable {
    private struct State {
        var chunks: [(bytes: [UInt8], isClose: Bool)] = []
        var queuedBytes = 0
        var closeQueued = false
        var finished = false
    }

    /// Wakes the WebSocket thread.
    let signal: WakeSignal
    /// The most bytes that may wait; a send past it fails the connection (the peer is not reading).
    let maxQueuedBytes: Int
    private let state = Locked(State())

    init(signal: WakeSignal, maxQueuedBytes: Int) {
        self.signal = signal
        self.maxQueuedBytes = maxQueuedBytes
    }

    /// Why a frame was not queued.
    enum Refusal: Error {
        case closed
        case overloaded
    }

    /// Queues a data or control frame.
    func enqueue(_ frame: WebSocketFrame) throws(Refusal) {
        let bytes = frame.encoded
        let result: Refusal? = state.withLock { state in
            guard !state.closeQueued, !state.finished else { return .closed }
            guard state.queuedBytes + bytes.count <= maxQueuedBytes else { return .overloaded }
            state.chunks.append((bytes, false))
            state.queuedBytes += bytes.count
            return nil
        }
        if let result { throw result }
        signal.signal()
    }

    /// Queues the close frame, once; later calls do nothing. Returns whether this call queued it.
    @discardableResult
    func enqueueClose(_ code: WebSocketCloseCode, reason: String) -> Bool {
        let bytes = WebSocketFrame.close(code, reason: reason).encoded
        let queued = state.withLock { state in
            guard !state.closeQueued, !state.finished else { return false }
            state.closeQueued = true
            state.chunks.append((bytes, true))
            state.queuedBytes += bytes.count
            return true
        }
        if queued { signal.signal() }
        return queued
    }

    /// Whether the close frame has been queued.
    var closeQueued: Bool { state.withLock { $0.closeQueued } }

    /// The next chunk to write, taken off the queue.
    func takeNext() -> (bytes: [UInt8], isClose: Bool)? {
        state.withLock { state in
            guard !state.chunks.isEmpty else { return nil }
            let chunk = state.chunks.removeFirst()
            state.queuedBytes -= chunk.bytes.count
            return chunk
        }
    }

    /// The connection has ended: nothing more is queued.
    func finish() {
        state.withLock { state in
            state.finished = true
            state.chunks = []
            state.queuedBytes = 0
        }
    }
}
