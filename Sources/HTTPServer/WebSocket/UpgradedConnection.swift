import Glibc

/// One open WebSocket connection as the server's WebSocket thread (`WebSocketLoop`) runs it: frames in and
/// queued frames out over the non-blocking socket, pings when quiet, and the closing handshake under its
/// deadline. Only that thread touches it; other threads reach the connection through the session's outbox.
///
/// It never reads a clock: the thread passes the time to every call, so the ping and close deadlines are tested
/// on times a test chooses (`UpgradedConnectionTests`) rather than by waiting.
final class UpgradedConnection {
    /// A connection libmicrohttpd has handed over, on its way to the thread.
    struct Arrival: Sendable {
        var socket: Int32
        var handle: UpgradeHandle
        /// Bytes libmicrohttpd read past the handshake's head (frames the client sent at once).
        var extra: [UInt8]
        var session: WebSocketSession
        var task: Task<Void, Never>
    }

    /// What is known of the closing handshake.
    private struct Closing {
        var deadline: ContinuousClock.Instant?
        var sent = false
        var received = false
        var failed = false
        /// This side's write end is shut after a failure; what the client still sends is read and dropped.
        var lingering = false
    }

    let socket: Int32
    let session: WebSocketSession
    private let handle: UpgradeHandle
    private let task: Task<Void, Never>
    private let limits: WebSocketLimits
    private var reader: WebSocketFrameReader
    private var assembler: WebSocketMessageAssembler
    private var closing = Closing()
    private var writing: ArraySlice<UInt8> = []
    private var writingClose = false
    private var nextPing: ContinuousClock.Instant
    /// The client is gone or the socket failed.
    private var broken = false
    private var discarded = 0

    /// The connection of `arrival`, arrived at `now`.
    init(_ arrival: Arrival, limits: WebSocketLimits, now: ContinuousClock.Instant) {
        socket = arrival.socket
        session = arrival.session
        handle = arrival.handle
        task = arrival.task
        self.limits = limits
        reader = WebSocketFrameReader(maxPayload: limits.maxMessageBytes)
        assembler = WebSocketMessageAssembler(maxMessage: limits.maxMessageBytes)
        nextPing = now + Self.duration(limits.pingSeconds)
        if !arrival.extra.isEmpty {
            reader.append(arrival.extra)
            handleFrames()
        }
    }

    private var outbox: WebSocketOutbox { session.outbox }

    /// The events to poll for.
    var events: Int16 {
        Int16(POLLIN) | (writing.isEmpty || closing.lingering ? 0 : Int16(POLLOUT))
    }

    /// When the connection next needs the thread without an event: its close deadline, or its next ping.
    var wakeAt: ContinuousClock.Instant {
        closing.deadline ?? nextPing
    }

    /// Does what is due at `now` (queued frames written as far as the socket takes them, a ping, the closing
    /// handshake's steps); false when the connection has ended.
    func step(now: ContinuousClock.Instant) -> Bool {
        if closing.deadline == nil, outbox.closeQueued { closing.deadline = now + Self.duration(limits.closeSeconds) }
        if closing.deadline == nil, now >= nextPing {
            try? outbox.enqueue(WebSocketFrame(fin: true, opcode: .ping, payload: Array("ping".utf8)))
            nextPing = now + Self.duration(limits.pingSeconds)
        }
        if !closing.lingering { flush(now: now) }
        if broken { return false }
        if closing.sent && closing.received { return false }
        if closing.sent && closing.failed && !closing.lingering {
            // The client broke the protocol and may still be sending: let it read the close frame, reading
            // and dropping what it sends until it closes (a close with unread bytes would send a reset that can
            // destroy the close frame in flight).
            shutdown(socket, Int32(SHUT_WR))
            closing.lingering = true
        }
        if let deadline = closing.deadline, now >= deadline { return false }
        return true
    }

    /// Acts on what `poll` reported at `now`.
    func handle(_ revents: Int16, now: ContinuousClock.Instant) {
        if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { receive(now: now) }
        if revents & Int16(POLLOUT) != 0, !closing.lingering { flush(now: now) }
    }

    /// The connection has ended: the handler's messages end, the handler is cancelled, and the socket goes
    /// back to libmicrohttpd. Called once, by the thread.
    func finish() {
        outbox.finish()
        session.continuation.finish()
        task.cancel()
        handle.close()
    }

    // MARK: - Reading and writing

    private func receive(now: ContinuousClock.Instant) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = read(socket, &chunk, chunk.count)
        if count == 0 {
            broken = true
        } else if count < 0 {
            if errno != EAGAIN && errno != EINTR { broken = true }
        } else if closing.lingering {
            discarded += count
            if discarded > 1 << 20 { broken = true }
        } else if !closing.received && !closing.failed {
            nextPing = now + Self.duration(limits.pingSeconds)
            reader.append(chunk[..<count])
            handleFrames()
        }
    }

    /// Writes queued frames until the queue is empty or the socket would block.
    private func flush(now: ContinuousClock.Instant) {
        while !broken {
            if writing.isEmpty {
                guard let next = outbox.takeNext() else { return }
                writing = next.bytes[...]
                writingClose = next.isClose
            }
            let written = writing.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                nextPing = now + Self.duration(limits.pingSeconds)
                writing = writing.dropFirst(written)
                if writing.isEmpty && writingClose { closing.sent = true }
            } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
                return
            } else {
                broken = true
            }
        }
    }

    /// Acts on every whole frame read so far: answers pings, echoes a close, delivers messages, and fails the
    /// connection (close frame with the failure's code) on a broken rule.
    private func handleFrames() {
        do {
            while !closing.received, let frame = try reader.next() {
                switch frame.opcode {
                case .ping:
                    try? outbox.enqueue(WebSocketFrame(fin: true, opcode: .pong, payload: frame.payload))
                case .pong:
                    break
                case .close:
                    closing.received = true
                    let (code, reason) = try Self.closeStatus(frame.payload)
                    outbox.enqueueClose(code ?? .normal, reason: reason)
                case .text, .binary, .continuation:
                    guard let message = try assembler.take(frame), !outbox.closeQueued else { continue }
                    if case .dropped = session.continuation.yield(message) {
                        closing.failed = true
                        outbox.enqueueClose(.policyViolation, reason: "too many unread messages")
                    }
                }
            }
        } catch {
            closing.failed = true
            outbox.enqueueClose(error.closeCode, reason: error.description)
        }
    }

    /// The code and reason of a client's close frame (no code: nil).
    private static func closeStatus(_ payload: [UInt8]) throws(WebSocketFailure) -> (WebSocketCloseCode?, String) {
        guard !payload.isEmpty else { return (nil, "") }
        guard payload.count >= 2 else { throw .protocolViolation("a close frame with a one-byte payload") }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { throw .protocolViolation("close code \(code) may not be sent") }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return (code, reason)
    }

    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64(seconds * 1000))
    }
}
