import BookRuleLocking
import CMicroHTTPD

/// An HTTP server on 127.0.0.1 only, over libmicrohttpd: every request is read whole (body capped), copied into
/// an `HTTPServerRequest` and answered by one handler on the connection's own thread.
///
/// Ownership: the handler lives in a `ServerContext` that the server retains once (`Unmanaged.passRetained`)
/// and hands libmicrohttpd as an opaque pointer; callbacks only borrow it. `stop()` stops the daemon, which
/// returns only after every connection thread has finished, and then releases the context: no callback can
/// run after the release. A request's body buffer is owned the same way, released in the completion callback.
package final class LoopbackHTTPServer: @unchecked Sendable {
    /// The port the server listens on (the one picked when 0 was asked for).
    package let port: UInt16
    /// The daemon, nil once stopped; guarded so that `stop()` from two threads stops it once.
    private let daemon: Locked<OpaquePointer?>
    private let context: Unmanaged<ServerContext>

    /// Starts listening on `127.0.0.1:port` (0: a free port). `handler` is called on a connection's thread,
    /// once per request, and may block (connections are limited to `connectionLimit`).
    package init(port: UInt16, bodyLimit: Int = 8 * 1024 * 1024, connectionLimit: UInt32 = 32,
                 idleTimeoutSeconds: UInt32 = 60,
                 handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse) throws(StudioError) {
        let context = Unmanaged.passRetained(ServerContext(handler: handler, bodyLimit: bodyLimit))
        guard let started = bookrule_mhd_start_loopback(port, connectionLimit, idleTimeoutSeconds, accessHandler,
                                                       context.toOpaque(), requestCompleted) else {
            context.release()
            throw .cannotListen(port: Int(port))
        }
        let bound = bookrule_mhd_bound_port(started)
        self.daemon = Locked(started)
        self.context = context
        self.port = bound == 0 ? port : bound
    }

    /// Stops accepting, waits for running requests to finish, and frees the daemon. Safe to call twice.
    package func stop() {
        let running = daemon.withLock { daemon -> OpaquePointer? in
            defer { daemon = nil }
            return daemon
        }
        guard let running else { return }
        MHD_stop_daemon(running)
        context.release()
    }

    deinit {
        stop()
    }
}

/// What the callbacks reach through libmicrohttpd's `cls` pointer.
private final class ServerContext: Sendable {
    let handler: @Sendable (HTTPServerRequest) -> HTTPServerResponse
    let bodyLimit: Int

    init(handler: @escaping @Sendable (HTTPServerRequest) -> HTTPServerResponse, bodyLimit: Int) {
        self.handler = handler
        self.bodyLimit = bodyLimit
    }
}

/// One request's body as it arrives; used only on its connection's thread, between the first call of the
/// access handler and the completion callback that releases it.
private final class RequestBody {
    var bytes: [UInt8] = []
    var tooLarge = false
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

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let requestContext, let uploadDataSize else { return bookrule_mhd_no() }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    // The first call for a request only announces it (headers read, body not yet): set up its body buffer.
    guard let stored = requestContext.pointee else {
        requestContext.pointee = Unmanaged.passRetained(RequestBody()).toOpaque()
        return bookrule_mhd_yes()
    }
    let body = Unmanaged<RequestBody>.fromOpaque(stored).takeUnretainedValue()
    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        if let uploadData, !body.tooLarge {
            if body.bytes.count + count > context.bodyLimit {
                body.tooLarge = true
            } else {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: count) { start in
                    body.bytes.append(contentsOf: UnsafeBufferPointer(start: start, count: count))
                }
            }
        }
        uploadDataSize.pointee = 0
        return bookrule_mhd_yes()
    }
    let request = HTTPServerRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: values(of: connection, kind: bookrule_mhd_argument_kind()), headers: values(of: connection, kind: bookrule_mhd_header_kind()),
        cookies: values(of: connection, kind: bookrule_mhd_cookie_kind()), body: body.bytes, bodyTooLarge: body.tooLarge)
    let answer = context.handler(request)
    let response = answer.body.withUnsafeBytes { bookrule_mhd_response_copying($0.baseAddress, $0.count) }
    guard let response else { return bookrule_mhd_no() }
    defer { MHD_destroy_response(response) }
    for (name, value) in answer.headers where !name.isEmpty {
        _ = MHD_add_response_header(response, name, value)
    }
    return MHD_queue_response(connection, UInt32(clamping: answer.status), response)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let stored = requestContext.pointee else { return }
    Unmanaged<RequestBody>.fromOpaque(stored).release()
    requestContext.pointee = nil
}
