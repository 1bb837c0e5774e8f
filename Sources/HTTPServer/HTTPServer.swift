import BookRuleLocking
import CMicroHTTPD
import Dispatch
import Foundation

/// An HTTP server over libmicrohttpd on one address (127.0.0.1 unless told otherwise): every request is read
/// whole (body capped), copied into an `HTTPServerRequest` and answered. The studio and `bookrule serve` both run
/// on it; who may ask what is their gate's business.
///
/// Threads: a few polling threads (one per processor) serve every connection over epoll. A request is offered
/// first to `quick`, on the polling thread, for answers that need nothing but memory and the disk (a saved
/// chapter); any other goes to `handler` on a thread of its own while its connection is suspended, so a request
/// waiting a minute for a site stalls no other. A thread per connection instead made 50 readers 50 runnable
/// threads on two cores, preempting one another mid-request (docs/performance.md, serve-content).
///
/// Ownership: the handlers live in a `ServerContext` that the server retains once (`Unmanaged.passRetained`)
/// and hands libmicrohttpd as an opaque pointer; callbacks only borrow it. `stop()` first waits for the requests
/// handed to threads to complete (each thread resumes its connection, whose answer is then sent: libmicrohttpd
/// must not stop with a connection suspended), then stops the daemon, which returns only after its polling threads have finished, and then
/// releases the context: no callback can run after the release. A request's state is owned the same way,
/// released in the completion callback; a handler thread holds its own reference until it has resumed.
///
/// WebSockets (`webSockets`): a handshake is a request like any other until it is answered 101; then its socket
/// belongs to the server's WebSocket thread (`WebSocketLoop`) until the session ends, still counted against
/// `connectionLimit`, and `stop()` ends the sessions first (libmicrohttpd must not stop with a socket still
/// upgraded).
///
/// Slow clients: on loopback every client has one address, so a per-address limit would be the total limit; each
/// connection has `requestSeconds` to deliver a whole request (head and body), counted from when it opened or
/// from its previous answer, however steadily it trickles bytes (`ConnectionDeadlines` shuts down a socket
/// that is late), and there are `connectionLimit` connections, so a few dozen half-open sockets cannot
/// refuse everyone else.
package final class HTTPServer: @unchecked Sendable {
    /// The port the server listens on (the one picked when 0 was asked for).
    package let port: UInt16
    /// The address it listens on, as given (`127.0.0.1`, `::1`, `0.0.0.0`, …).
    package let address: String
    /// The daemon, nil once stopped; guarded so that `stop()` from two threads stops it once.
    private let daemon: Locked<OpaquePointer?>
    private let context: Unmanaged<ServerContext>
    /// Shuts down connections past their deadline.
    private let watchdog: any DispatchSourceTimer
    /// The WebSocket sessions, when the server has endpoints.
    private let webSocketLoop: WebSocketLoop?

    /// Starts listening on `address:port` (an IPv4 or IPv6 literal; port 0: a free one). Each request is asked of
    /// `quick` first, when given, on a polling thread: it must answer at once or return nil, never wait on a
    /// site or another request. `handler` answers the rest, each on a thread of its own, and may block
    /// (connections are limited to `connectionLimit`). A connection that has not delivered a whole request
    /// `requestSeconds` after it opened or got its last answer is closed, as is one idle (nothing sent or
    /// received) for `idleTimeoutSeconds` while an answer is sent. Requests for `webSockets`' paths, and any that
    /// asks for a WebSocket, are handshakes (`WebSocketEndpoints`), never given to `quick` or `handler`.
    package init(address: String = "127.0.0.1", port: UInt16, bodyLimit: Int = 8 * 1024 * 1024, connectionLimit: UInt32 = 256,
                 requestSeconds: Double = 10, idleTimeoutSeconds: UInt32 = 30,
                 webSockets: WebSocketEndpoints? = nil,
                 admits: (@Sendable (HTTPServerRequest) -> Bool)? = nil,
                 quick: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)? = nil,
                 handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) throws(HTTPServerError) {
        let deadlines = ConnectionDeadlines(seconds: requestSeconds)
        var loop: WebSocketLoop?
        if let webSockets {
            // Every handshake's answer hashes its key with SHA-1: a server that could not answer one does not start.
            guard WebSocketHandshake.canAnswer else { throw .noSHA1 }
            guard let started = WebSocketLoop(webSockets) else { throw .noThread }
            loop = started
        }
        let context = Unmanaged.passRetained(ServerContext(quick: quick, handler: handler, admits: admits, bodyLimit: bodyLimit,
                                                           deadlines: deadlines, webSockets: loop))
        let pollingThreads = UInt32(clamping: max(1, ProcessInfo.processInfo.activeProcessorCount))
        guard let started = bookrule_mhd_start(address, port, connectionLimit, idleTimeoutSeconds, pollingThreads, accessHandler,
                                               context.toOpaque(), requestCompleted, connectionNotice) else {
            loop?.stop()
            context.release()
            throw .cannotListen(address: address, port: Int(port))
        }
        let bound = bookrule_mhd_bound_port(started)
        self.daemon = Locked(started)
        self.context = context
        self.port = bound == 0 ? port : bound
        self.address = address
        webSocketLoop = loop
        let interval = max(0.02, min(0.25, requestSeconds / 8))
        watchdog = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        watchdog.schedule(deadline: .now() + interval, repeating: interval)
        watchdog.setEventHandler { deadlines.shutDownOverdue() }
        watchdog.resume()
    }

    /// Stops accepting, waits for running requests to finish, and frees the daemon. Safe to call twice; not from
    /// a handler (it would wait for itself).
    package func stop() {
        let running = daemon.withLock { daemon -> OpaquePointer? in
            defer { daemon = nil }
            return daemon
        }
        guard let running else { return }
        // WebSocket sessions end first, their sockets given back: libmicrohttpd must not stop with one upgraded.
        webSocketLoop?.stop()
        // Requests that come from here on are answered 503 on the polling thread: none is suspended any more.
        // The slow-client deadlines still hold while the handlers finish.
        context.takeUnretainedValue().handlerThreads.close()
        // The timer's handler holds the deadlines, not the context; after the daemon stops there is no entry left.
        watchdog.cancel()
        MHD_stop_daemon(running)
        context.release()
    }

    /// `stop()`, then waits until every WebSocket handler has returned (they are cancelled when their
    /// sessions end), for callers that must know none still runs.
    package func stopAwaitingWebSocketHandlers() async {
        stop()
        await webSocketLoop?.handlersEnded()
    }

    deinit {
        stop()
    }
}

/// What the callbacks reach through libmicrohttpd's `cls` pointer.
private final class ServerContext: Sendable {
    let quick: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)?
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    /// Asked with a request's head (no body yet): false keeps its body from being read into memory at all.
    let admits: (@Sendable (HTTPServerRequest) -> Bool)?
    let bodyLimit: Int
    let deadlines: ConnectionDeadlines
    let handlerThreads = HandlerThreads()
    let webSockets: WebSocketLoop?

    init(quick: (@Sendable (HTTPServerRequest) -> HTTPServerResponse?)?, handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse,
         admits: (@Sendable (HTTPServerRequest) -> Bool)?, bodyLimit: Int, deadlines: ConnectionDeadlines, webSockets: WebSocketLoop?) {
        self.webSockets = webSockets
        self.quick = quick
        self.handler = handler
        self.admits = admits
        self.bodyLimit = bodyLimit
        self.deadlines = deadlines
    }
}

/// The threads answering requests off the polling threads, each request counted from when it is handed to a
/// thread until libmicrohttpd says it is complete (its answer sent, or its connection gone), so that `stop()`
/// can wait for them all before the daemon stops (a resumed connection whose answer was not yet sent would be
/// closed without it), and refuse new ones from then on.
private final class HandlerThreads: Sendable {
    private let closed = Locked(false)
    private let running = DispatchGroup()

    /// Runs `work` on a new thread, the request counted until `completed()`; false (nothing run, nothing
    /// counted) once closed or when the system refuses a thread. `suspend` runs on the calling thread before
    /// `work` starts, so the connection is suspended before the thread can resume it.
    func start(suspending suspend: () -> Void, _ work: @escaping @Sendable () -> Void) -> Bool {
        guard closed.withLock({ closed -> Bool in
            if closed { return false }
            running.enter()
            return true
        }) else { return false }
        let suspended = DispatchSemaphore(value: 0)
        guard BlockingWorkThread.start({
            suspended.wait()
            work()
        }) else {
            running.leave()
            return false
        }
        suspend()
        suspended.signal()
        return true
    }

    /// A request `start` took is complete.
    func completed() {
        running.leave()
    }

    /// Refuses new work, then waits for the requests handed to threads to complete.
    func close() {
        closed.withLock { $0 = true }
        running.wait()
    }
}

/// A suspended connection, handed to the handler thread that resumes it (libmicrohttpd allows resuming from any
/// thread; the thread does nothing else with it).
private struct SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// One request as it is read and answered. The body is written on the polling thread; `answer` by the handler
/// thread before it resumes the connection (libmicrohttpd's resume and its next call to the access handler
/// order the two), and read on the polling thread that queues it.
private final class RequestState: @unchecked Sendable {
    var bytes: [UInt8] = []
    var tooLarge = false
    /// The head was refused (no token, a foreign Host): the body is read past, never kept.
    var refused = false
    /// The handler thread's answer, queued when libmicrohttpd calls again after the resume.
    var answer: HTTPServerResponse?
    /// Handed to a handler thread: its completion is counted (`HandlerThreads.completed`).
    var handedOn = false
    /// Answered 101: a WebSocket session is counted until the connection is upgraded or ends.
    var upgrading = false
}

/// Collects key/value pairs from `MHD_get_connection_values`.
private final class PairCollector {
    var pairs: [(name: String, value: String)] = []
}

private let collectPair: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return bookrule_mhd_yes() }
    let collector = Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return bookrule_mhd_yes()
}

private func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
    let collector = PairCollector()
    withExtendedLifetime(collector) {
        _ = MHD_get_connection_values(connection, kind, collectPair, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.pairs
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let requestContext, let uploadDataSize else { return bookrule_mhd_no() }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    // The first call for a request only announces it (headers read, body not yet): set up its state.
    guard let stored = requestContext.pointee else {
        let state = RequestState()
        if let admits = context.admits {
            // A stranger's 16 MiB POSTs on every connection must not be held in memory before the gate refuses them.
            state.refused = !admits(request(connection, url: url, method: method, state: state))
        }
        requestContext.pointee = Unmanaged.passRetained(state).toOpaque()
        return bookrule_mhd_yes()
    }
    let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        if let uploadData, !state.tooLarge, !state.refused {
            if state.bytes.count + count > context.bodyLimit {
                state.tooLarge = true
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { start in
                    state.bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: count))
                }
            }
        }
        uploadDataSize.pointee = 0
        return bookrule_mhd_yes()
    }
    // Called again after a handler thread resumed the connection: its answer is ready.
    if let answer = state.answer { return queue(answer, on: connection) }
    // The request is read whole: from here its time is the handler's (which bounds its own work).
    context.deadlines.requestRead(ConnectionDeadlines.key(connection))
    let whole = request(connection, url: url, method: method, state: state)
    if let webSockets = context.webSockets, webSockets.isHandshake(whole) {
        return answerHandshake(whole, version: version.map { String(cString: $0) } ?? "", on: connection, state: state,
                               loop: webSockets)
    }
    if let quick = context.quick, let answer = quick(whole) { return queue(answer, on: connection) }
    let suspended = SuspendedConnection(pointer: connection)
    let handler = context.handler
    // Set before the thread can run: its request completes only after it resumed the connection.
    state.handedOn = true
    let started = context.handlerThreads.start(suspending: { MHD_suspend_connection(connection) }) {
        state.answer = handler(whole)
        MHD_resume_connection(suspended.pointer)
    }
    if !started { state.handedOn = false }
    guard started else { return queue(.text(503, "the server is stopping, or has no thread to answer with"), on: connection) }
    return bookrule_mhd_yes()
}

/// Answers a WebSocket handshake on `connection`: refused, or 101 with the socket then handed to `loop`.
private func answerHandshake(_ request: HTTPServerRequest, version: String, on connection: OpaquePointer,
                             state: RequestState, loop: WebSocketLoop) -> MHD_Result {
    let key = ConnectionDeadlines.key(connection)
    switch loop.answer(request, version: version, connection: key) {
    case .refuse(var refusal):
        refusal.headers.append(("Connection", "close"))
        return queue(refusal, on: connection)
    case .upgrade(let accept):
        state.upgrading = true
        // The loop outlives the daemon (the context holds it until after MHD_stop_daemon): borrowed, not retained.
        guard let response = MHD_create_response_for_upgrade(upgradeHandler, Unmanaged.passUnretained(loop).toOpaque()) else {
            loop.abandon(connection: key)
            return bookrule_mhd_no()
        }
        defer { MHD_destroy_response(response) }
        _ = MHD_add_response_header(response, "Upgrade", "websocket")
        _ = MHD_add_response_header(response, "Sec-WebSocket-Accept", accept)
        let queued = MHD_queue_response(connection, 101, response)
        if queued != bookrule_mhd_yes() { loop.abandon(connection: key) }
        return queued
    }
}

/// libmicrohttpd has sent the 101: the socket goes to the server's WebSocket thread.
private let upgradeHandler: MHD_UpgradeHandler = { cls, connection, _, extraIn, extraInSize, socket, handle in
    guard let handle else { return }
    let upgrade = UpgradeHandle(pointer: handle)
    guard let cls, let connection else {
        upgrade.close()
        return
    }
    let loop = Unmanaged<WebSocketLoop>.fromOpaque(cls).takeUnretainedValue()
    let extra = extraIn.map { start in
        start.withMemoryRebound(to: UInt8.self, capacity: extraInSize) { Array(UnsafeBufferPointer(start: $0, count: extraInSize)) }
    } ?? []
    loop.upgraded(connection: ConnectionDeadlines.key(connection), socket: socket, handle: upgrade, extra: extra)
}

/// Queues `answer` on `connection` (from the access handler only).
private func queue(_ answer: HTTPServerResponse, on connection: OpaquePointer) -> MHD_Result {
    let response: OpaquePointer?
    if let file = answer.file {
        guard let opened = file.makeResponse() else {
            return queue(.text(500, "the file to answer with cannot be read"), on: connection)
        }
        response = opened
    } else {
        response = answer.body.withUnsafeBytes { bookrule_mhd_response_copying($0.baseAddress, $0.count) }
    }
    guard let response else { return bookrule_mhd_no() }
    defer { MHD_destroy_response(response) }
    for (name, value) in answer.headers where !name.isEmpty {
        _ = MHD_add_response_header(response, name, value)
    }
    return MHD_queue_response(connection, UInt32(clamping: answer.status), response)
}

/// The request on `connection`: its head, and the body read so far.
private func request(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
                     state: RequestState) -> HTTPServerRequest {
    let socket = bookrule_mhd_connection_fd(connection)
    return HTTPServerRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: values(of: connection, kind: bookrule_mhd_argument_kind()), headers: values(of: connection, kind: bookrule_mhd_header_kind()),
        cookies: values(of: connection, kind: bookrule_mhd_cookie_kind()), body: state.bytes, bodyTooLarge: state.tooLarge,
        clientGone: { socket >= 0 && bookrule_socket_peer_closed(socket) != 0 })
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    if let cls, let connection {
        // Answered (or given up): the next request on this connection has its own time.
        Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().deadlines.answered(ConnectionDeadlines.key(connection))
    }
    guard let requestContext, let stored = requestContext.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(stored).takeUnretainedValue()
    if let cls, state.handedOn {
        Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().handlerThreads.completed()
    }
    if let cls, let connection, state.upgrading {
        // A 101 that never led to an upgrade (the client left first) gives its session count back.
        Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().webSockets?.abandon(connection: ConnectionDeadlines.key(connection))
    }
    Unmanaged<RequestState>.fromOpaque(stored).release()
    requestContext.pointee = nil
}

private let connectionNotice: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let deadlines = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().deadlines
    if bookrule_mhd_is_connection_start(code) != 0 {
        deadlines.opened(ConnectionDeadlines.key(connection), socket: bookrule_mhd_connection_fd(connection))
    } else {
        deadlines.closed(ConnectionDeadlines.key(connection))
    }
}
