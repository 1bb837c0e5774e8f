import Glibc

/// One client connection, run start to end on a thread of its own: the handshake under its deadline, then
/// frames in and queued frames out over the non-blocking socket, then the closing handshake under its
/// deadline. The thread alone touches the socket; other threads reach it through the outbox and the signal.
final class WebSocketConnection: Sendable {
    let id: Int
    let socket: SocketDescriptor
    let signal: WakeSignal
    let server: ServeSocketServer
    let outbox: WebSocketOutbox

    init(id: Int, socket: SocketDescriptor, signal: WakeSignal, server: ServeSocketServer) {
        self.id = id
        self.socket = socket
        self.signal = signal
        self.server = server
        outbox = WebSocketOutbox(signal: signal, maxQueuedBytes: server.limits.maxQueuedBytes)
    }

    private var limits: ServeSocketLimits { server.limits }

    /// Runs the connection; returns once its socket is done with (the owner closes it).
    func run() {
        defer {
            outbox.finish()
            // Closed before the server counts the connection as ended, so `stop()` returns with none open.
            socket.close()
            server.closed(id)
            server.finished()
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int64(limits.handshakeSeconds * 1000))
        guard let (head, rest) = readHead(until: deadline) else { return }
        let handshake: WebSocketHandshake
        do {
            handshake = try WebSocketHandshake(head: head)
        } catch {
            refuse(400, "Bad Request", "\(error)", until: deadline)
            return
        }
        guard let handler = server.routes[handshake.path] else {
            refuse(404, "Not Found", "no WebSocket endpoint at \(handshake.path)", until: deadline)
            return
        }
        guard server.gate(handshake.target, handshake.headers) else {
            refuse(403, "Forbidden", "refused", until: deadline)
            return
        }
        let session = WebSocketSession(handshake: handshake, outbox: outbox, unreadMessages: limits.maxUnreadMessages)
        outbox.enqueueRaw(handshake.switchingProtocols)
        server.open(id, session: session, handler: handler)
        serve(session, received: rest)
    }

    // MARK: - The handshake

    /// Reads the request head (up to the blank line) and any bytes after it; nil when the client is too slow,
    /// too long, or gone, or the server stops (a head over the size cap is answered 400 first).
    private func readHead(until deadline: ContinuousClock.Instant) -> ([UInt8], [UInt8])? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = Self.headEnd(in: buffer) {
                return (Array(buffer[..<end]), Array(buffer[end...]))
            }
            if buffer.count > limits.maxHeadBytes {
                refuse(400, "Bad Request", "the request head is over \(limits.maxHeadBytes) bytes", until: deadline)
                return nil
            }
            guard !server.isStopping, let readable = wait(readable: true, until: deadline) else { return nil }
            // Woken without data: only the server stopping wakes a handshake, which the loop's top checks.
            guard readable else { continue }
            let count = read(socket.fd, &chunk, chunk.count)
            if count == 0 { return nil }
            if count < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
                return nil
            }
            buffer.append(contentsOf: chunk[..<count])
        }
    }

    /// The index just after the head's blank line.
    private static func headEnd(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 3..<buffer.count
        where buffer[index] == 10 && buffer[index - 1] == 13 && buffer[index - 2] == 10 && buffer[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// Answers the handshake with an HTTP error and ends.
    private func refuse(_ status: Int, _ reason: String, _ message: String, until deadline: ContinuousClock.Instant) {
        var bytes = WebSocketHandshake.refusal(status, reason, message: message)[...]
        defer { linger(until: min(deadline, .now + .seconds(1))) }
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                bytes = bytes.dropFirst(written)
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                // Writable again: go on; woken by the server stopping, or past the deadline: give up.
                guard wait(readable: false, until: deadline) == true, !server.isStopping else { return }
            } else {
                return
            }
        }
    }

    /// Ends this side of the stream and reads (discarding) what the client still sends until it closes its
    /// side or `deadline` passes: closing a socket with unread bytes would send a reset, which can destroy
    /// the answer or close frame still in flight to the client.
    private func linger(until deadline: ContinuousClock.Instant) {
        shutdown(socket.fd, Int32(SHUT_WR))
        var chunk = [UInt8](repeating: 0, count: 4096)
        var discarded = 0
        while discarded < 1 << 20, wait(readable: true, until: deadline) != nil {
            let count = read(socket.fd, &chunk, chunk.count)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
            discarded += max(0, count)
        }
    }

    /// Waits until the socket is readable (or writable) or `deadline` passes; the signal wakes it too. Returns
    /// true when the socket is ready, false on a wake-up, nil when the deadline passed or polling failed.
    private func wait(readable: Bool, until deadline: ContinuousClock.Instant) -> Bool? {
        let remaining = deadline - ContinuousClock.now
        guard remaining > .zero else { return nil }
        let milliseconds = Int32(min(Double(Int32.max), Self.milliseconds(remaining).rounded(.up)))
        var entries = [pollfd(fd: socket.fd, events: Int16(readable ? POLLIN : POLLOUT), revents: 0),
                       pollfd(fd: signal.readFD, events: Int16(POLLIN), revents: 0)]
        let ready = poll(&entries, 2, milliseconds)
        if ready < 0 { return errno == EINTR ? false : nil }
        if entries[1].revents != 0 { signal.drain() }
        if entries[0].revents != 0 { return true }
        return ready == 0 ? nil : false
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    // MARK: - The open connection

    /// What the connection loop knows of the closing handshake.
    private struct Closing {
        var deadline: ContinuousClock.Instant?
        var sent = false
        var received = false
        var failed = false
    }

    /// Frames in and out until the closing handshake is done, the deadline passes or the client is gone.
    private func serve(_ session: WebSocketSession, received: [UInt8]) {
        var reader = WebSocketFrameReader(maxPayload: limits.maxMessageBytes)
        var assembler = WebSocketMessageAssembler(maxMessage: limits.maxMessageBytes)
        var closing = Closing()
        var writing: ArraySlice<UInt8> = []
        var writingClose = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        let closeTime = Duration.milliseconds(Int64(limits.closeSeconds * 1000))
        let pingTime = Duration.milliseconds(Int64(limits.pingSeconds * 1000))
        var nextPing = ContinuousClock.now + pingTime
        reader.append(received)
        handleFrames(&reader, &assembler, &closing, session)
        while true {
            if server.isStopping { session.close(.goingAway, reason: "server stopping") }
            if closing.deadline == nil, outbox.closeQueued { closing.deadline = .now + closeTime }
            if writing.isEmpty, let next = outbox.takeNext() {
                writing = next.bytes[...]
                writingClose = next.isClose
            }
            if closing.sent && closing.received { return }
            if closing.sent && closing.failed {
                // The client broke the protocol: it may still be sending; let it see the close frame first.
                if let deadline = closing.deadline { linger(until: deadline) }
                return
            }
            if let deadline = closing.deadline, ContinuousClock.now >= deadline { return }
            if closing.deadline == nil, ContinuousClock.now >= nextPing {
                try? outbox.enqueue(WebSocketFrame(fin: true, opcode: .ping, payload: Array("ping".utf8)))
                nextPing = .now + pingTime
                continue
            }
            let wakeAt = closing.deadline ?? nextPing
            let timeout = Int32(max(0, Self.milliseconds(wakeAt - .now)).rounded(.up))
            var events = Int16(POLLIN)
            if !writing.isEmpty { events |= Int16(POLLOUT) }
            var entries = [pollfd(fd: socket.fd, events: events, revents: 0),
                           pollfd(fd: signal.readFD, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&entries, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if entries[1].revents != 0 { signal.drain() }
            let revents = entries[0].revents
            if revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = read(socket.fd, &chunk, chunk.count)
                if count == 0 { return }
                if count < 0 {
                    if errno != EAGAIN && errno != EINTR { return }
                } else if !closing.received && !closing.failed {
                    nextPing = .now + pingTime
                    reader.append(chunk[..<count])
                    handleFrames(&reader, &assembler, &closing, session)
                }
            }
            if revents & Int16(POLLOUT) != 0, !writing.isEmpty {
                let written = writing.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written > 0 {
                    nextPing = .now + pingTime
                    writing = writing.dropFirst(written)
                    if writing.isEmpty && writingClose { closing.sent = true }
                } else if written < 0 && errno != EAGAIN && errno != EINTR {
                    return
                }
            }
        }
    }

    /// Acts on every whole frame read so far: answers pings, echoes a close, delivers messages, and fails the
    /// connection (close frame with the failure's code) on a broken rule.
    private func handleFrames(_ reader: inout WebSocketFrameReader, _ assembler: inout WebSocketMessageAssembler,
                              _ closing: inout Closing, _ session: WebSocketSession) {
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
}
