import BookRuleLocking
import CMicroHTTPD
import Dispatch
import Glibc

/// The WebSocket side of one `HTTPServer`: it checks handshakes (on libmicrohttpd's polling threads, which
/// answer them 101), takes the upgraded connections, and serves all of them on one thread of its own over
/// `poll`, frames in and queued frames out, while each route's handler runs as a task.
///
/// Why this shape (docs/architecture.md, "serve's WebSockets"): a handshake is an HTTP request, so it waits
/// for its bytes in libmicrohttpd's event loop under the same deadline and connection limit as any request: a
/// slow or half-open client costs a slot for `requestSeconds`, never a thread. An open session costs a table
/// entry here; `limits.maxSessions` bounds them.
///
/// Ownership: an upgraded socket is libmicrohttpd's; this thread alone reads and writes it, and gives it back
/// with `MHD_upgrade_action(CLOSE)` when the session ends (never `close`). `stop()` ends every session and
/// gives every socket back before returning, which `MHD_stop_daemon` requires.
final class WebSocketLoop: Sendable {
    /// What the loop serves.
    let endpoints: WebSocketEndpoints
    private let signal: WakeSignal
    private let shared = Locked(Shared())
    private let threadEnded = DispatchSemaphore(value: 0)
    private let handlers = DispatchGroup()

    /// An upgrade answered 101 whose socket libmicrohttpd has not handed over yet.
    private struct Pending {
        var request: HTTPServerRequest
        var handler: WebSocketEndpoints.Handler
    }

    private struct Shared {
        var threadRunning = false
        var stopping = false
        /// Pending upgrades and open sessions, counted against `maxSessions`.
        var sessions = 0
        /// By connection (`ConnectionDeadlines.key`).
        var pending: [Int: Pending] = [:]
        /// Handed over, not yet taken by the thread.
        var arrivals: [UpgradedConnection.Arrival] = []
    }

    /// What to do with a handshake.
    enum Answer {
        /// Refuse it with this response.
        case refuse(HTTPServerResponse)
        /// Answer 101 with this `Sec-WebSocket-Accept` (the session is counted: `abandon` if it cannot be queued).
        case upgrade(accept: String)
    }

    /// A loop for `endpoints`, its thread started; nil when the system gives no pipe or thread.
    init?(_ endpoints: WebSocketEndpoints) {
        guard let signal = WakeSignal() else { return nil }
        self.endpoints = endpoints
        self.signal = signal
        shared.withLock { $0.threadRunning = true }
        guard BlockingWorkThread.start({ [self] in run() }) else { return nil }
    }

    /// Whether `request` is a handshake for these endpoints (one of their paths, or any `Upgrade: websocket`).
    func isHandshake(_ request: HTTPServerRequest) -> Bool {
        endpoints.routes[request.path] != nil || WebSocketHandshake.isRequested(by: request)
    }

    /// Checks the handshake `request` (sent over `version`) on connection `key`, and counts its session when
    /// it may open.
    func answer(_ request: HTTPServerRequest, version: String, connection key: Int) -> Answer {
        let handshake: WebSocketHandshake
        do {
            handshake = try WebSocketHandshake(request, version: version)
        } catch {
            var refusal = HTTPServerResponse.text(400, error.description)
            refusal.headers.append(("Sec-WebSocket-Version", "13"))
            return .refuse(refusal)
        }
        guard let handler = endpoints.routes[request.path] else {
            return .refuse(.text(404, "no WebSocket endpoint at \(request.path)"))
        }
        guard endpoints.admits(request) else { return .refuse(.text(403, "refused")) }
        guard let accept = WebSocketHandshake.acceptValue(for: handshake.key) else {
            return .refuse(.text(500, "this machine's OpenSSL refuses SHA-1, which a WebSocket handshake needs"))
        }
        let admitted = shared.withLock { shared in
            guard !shared.stopping, shared.sessions < endpoints.limits.maxSessions else { return false }
            shared.sessions += 1
            shared.pending[key] = Pending(request: request, handler: handler)
            return true
        }
        guard admitted else { return .refuse(.text(503, "too many WebSocket connections")) }
        return .upgrade(accept: accept)
    }

    /// The connection `key` ended without being upgraded (or its 101 could not be queued): its count is
    /// given back. Nothing when it was upgraded.
    func abandon(connection key: Int) {
        shared.withLock { shared in
            if shared.pending.removeValue(forKey: key) != nil { shared.sessions -= 1 }
        }
    }

    /// libmicrohttpd hands over connection `key`'s socket after the 101, with the bytes it read past the head.
    /// Starts the route's handler and gives the socket to the thread; gives it straight back when the upgrade
    /// is unknown or the loop has ended.
    func upgraded(connection key: Int, socket: Int32, handle: UpgradeHandle, extra: [UInt8]) {
        let pending: Pending? = shared.withLock { shared in
            guard shared.threadRunning, let pending = shared.pending.removeValue(forKey: key) else { return nil }
            return pending
        }
        guard let pending else {
            handle.close()
            return
        }
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        let limits = endpoints.limits
        let outbox = WebSocketOutbox(signal: signal, maxQueuedBytes: limits.maxQueuedBytes)
        let session = WebSocketSession(request: pending.request, outbox: outbox, unreadMessages: limits.maxUnreadMessages)
        handlers.enter()
        let task = Task { [handlers] in
            await pending.handler(session)
            session.close()
            handlers.leave()
        }
        let arrival = UpgradedConnection.Arrival(socket: socket, handle: handle, extra: extra, session: session, task: task)
        let taken = shared.withLock { shared in
            guard shared.threadRunning else { return false }
            if shared.stopping { session.close(.goingAway, reason: "server stopping") }
            shared.arrivals.append(arrival)
            return true
        }
        if taken {
            signal.signal()
        } else {
            end(UpgradedConnection(arrival, limits: limits, now: .now))
        }
    }

    /// Closes every session (1001, "server stopping"), waits for their closing handshakes (at most the close
    /// time), gives every socket back and ends the thread; handlers are cancelled, not awaited. Once only.
    func stop() {
        let first = shared.withLock { shared in
            defer { shared.stopping = true }
            return !shared.stopping
        }
        guard first else { return }
        signal.signal()
        threadEnded.wait()
    }

    /// Waits until every handler task has returned (after `stop()`, which cancels them).
    func handlersEnded() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            handlers.notify(queue: .global()) { continuation.resume() }
        }
    }

    // MARK: - The thread

    private func run() {
        var connections: [UpgradedConnection] = []
        var stopDeadline: ContinuousClock.Instant?
        let closeTime = Duration.milliseconds(Int64(endpoints.limits.closeSeconds * 1000))
        while true {
            let (arrivals, stopping) = shared.withLock { shared in
                defer { shared.arrivals = [] }
                return (shared.arrivals, shared.stopping)
            }
            let now = ContinuousClock.now
            connections += arrivals.map { UpgradedConnection($0, limits: endpoints.limits, now: now) }
            if stopping {
                if stopDeadline == nil { stopDeadline = now + closeTime }
                for connection in connections { connection.session.close(.goingAway, reason: "server stopping") }
            }
            let pastStop = stopDeadline.map { now >= $0 } ?? false
            connections.removeAll { connection in
                let ended = !connection.step(now: now) || pastStop
                if ended { end(connection) }
                return ended
            }
            if stopping && connections.isEmpty { break }
            var entries = [pollfd(fd: signal.readFD, events: Int16(POLLIN), revents: 0)]
            entries += connections.map { pollfd(fd: $0.socket, events: $0.events, revents: 0) }
            let wakeAt = (connections.map(\.wakeAt) + [stopDeadline].compactMap { $0 }).min()
            let timeout = wakeAt.map { Int32(min(1000, max(0, Self.milliseconds($0 - now)).rounded(.up))) } ?? -1
            guard poll(&entries, nfds_t(entries.count), timeout) >= 0 || errno == EINTR else {
                // poll itself failed (no memory): end every session rather than spin.
                connections.forEach(end)
                connections = []
                shared.withLock { $0.stopping = true }
                continue
            }
            if entries[0].revents != 0 { signal.drain() }
            for (index, connection) in connections.enumerated() where entries[index + 1].revents != 0 {
                connection.handle(entries[index + 1].revents, now: .now)
            }
        }
        let late = shared.withLock { shared in
            shared.threadRunning = false
            defer { shared.arrivals = [] }
            return shared.arrivals
        }
        late.forEach { end(UpgradedConnection($0, limits: endpoints.limits, now: .now)) }
        threadEnded.signal()
    }

    /// Ends a connection: its messages end, its handler is cancelled, its socket goes back to libmicrohttpd,
    /// its session is no longer counted.
    private func end(_ connection: UpgradedConnection) {
        connection.finish()
        shared.withLock { $0.sessions -= 1 }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

/// An upgraded connection's handle in libmicrohttpd, for giving its socket back.
struct UpgradeHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Gives the socket back: libmicrohttpd closes it and ends the connection. Once per handle.
    func close() {
        _ = bookrule_mhd_upgrade_close(pointer)
    }
}
