import BookRuleScript
import BookRuleDocument
import BookRuleLocking
import Glibc

/// The WebSocket server of `bookrule serve` (RFC 6455), on a listen address and port of its own (Legado's web
/// client looks for it on the HTTP port + 1): each handshake is checked by the gate, then handed to the
/// route named by its path, whose handler runs as a task with the open `WebSocketSession`.
///
/// Why plain POSIX sockets and not libmicrohttpd's upgrade (`MHD_create_response_for_upgrade`): the handshake
/// is one GET head, a small part of HTTP, while over libmicrohttpd the server would need an overall deadline
/// beside the library's idle timeout (as the studio's `ConnectionDeadlines`), would have to close every
/// upgraded socket before `MHD_stop_daemon` or its threads never end, and would share each socket with a
/// thread it does not own. Here one thread per connection owns its socket from `accept` to `close`
/// (`SocketDescriptor`), handshake deadline, framing, queued writes and shutdown included, and other threads
/// only wake it through a pipe; `maxConnections` bounds the threads.
///
///     let server = ServeSocketServer(listen: "127.0.0.1", port: 1123, gate: { target, headers in … },
///                                    routes: ServeSocketRoutes.legado(sources: …, stack: …))
///     let port = try server.start()
///     …
///     await server.stop()
public final class ServeSocketServer: Sendable {
    /// Decides whether a handshake may open: the request target (path and query) and the header fields, names
    /// lower-cased (`host`, `origin`, `cookie`…). A refused handshake is answered 403.
    public typealias Gate = @Sendable (_ target: String, _ headers: [String: String]) -> Bool
    /// Serves one open connection; when it returns the connection is closed normally (1000) if still open.
    public typealias Handler = @Sendable (WebSocketSession) async -> Void

    /// The numeric address listened on.
    public let listenAddress: String
    /// The port asked for (0: any free one; `start()` says which).
    public let requestedPort: UInt16
    /// The bounds on every client.
    public let limits: ServeSocketLimits
    let gate: Gate
    let routes: [String: Handler]
    private let state = Locked(State())
    private let acceptSignal: WakeSignal?

    private struct State {
        var started = false
        var stopping = false
        var boundPort: UInt16?
        /// Connection threads, handler tasks and the accept thread still running.
        var running = 0
        var nextID = 0
        var connections: [Int: Entry] = [:]
        var idle: [CheckedContinuation<Void, Never>] = []
    }

    private struct Entry {
        var signal: WakeSignal
        var session: WebSocketSession?
        var handler: Task<Void, Never>?
    }

    /// A server on `listen` (a numeric IPv4 or IPv6 address; 127.0.0.1 by default) and `port`, refusing the
    /// handshakes `gate` refuses, serving the paths of `routes` (others get 404).
    public init(listen: String = "127.0.0.1", port: UInt16, gate: @escaping Gate, routes: [String: Handler],
                limits: ServeSocketLimits = ServeSocketLimits()) {
        listenAddress = listen
        requestedPort = port
        self.gate = gate
        self.routes = routes
        self.limits = limits
        acceptSignal = WakeSignal()
    }

    /// The port bound, once started.
    public var port: UInt16? { state.withLock { $0.boundPort } }

    /// Binds and starts accepting; returns the port bound.
    @discardableResult
    public func start() throws(ServeSocketError) -> UInt16 {
        let claimed = state.withLock { state in
            guard !state.started, !state.stopping else { return false }
            state.started = true
            return true
        }
        guard claimed else { throw .alreadyStarted }
        // Every handshake hashes its key with SHA-1 (`WebSocketHandshake.acceptValue`), which must never be asked
        // of a libcrypto that refuses it: a server that cannot answer handshakes does not start.
        guard MessageDigest.Algorithm.sha1.isAvailable else { throw .noSHA1 }
        guard let acceptSignal else { throw .system(call: "pipe2", message: String(cString: strerror(errno))) }
        let (listener, port) = try Self.listen(on: listenAddress, port: requestedPort)
        state.withLock { state in
            state.boundPort = port
            state.running += 1
        }
        let started = BlockingWorkThread.start { [self] in
            acceptLoop(listener, signal: acceptSignal)
            // Closed before the server counts the loop as ended, so nothing listens once `stop()` returns.
            listener.close()
            finished()
        }
        if !started {
            state.withLock { $0.running -= 1 }
            throw .system(call: "pthread_create", message: "no thread for the accept loop")
        }
        return port
    }

    /// Stops accepting, closes every session (1001, "server stopping"), cancels their handlers, and returns
    /// once no connection thread or handler runs any more. Safe to call more than once, or without `start()`.
    public func stop() async {
        let signals: [WakeSignal] = state.withLock { state in
            state.stopping = true
            for entry in state.connections.values {
                entry.session?.close(.goingAway, reason: "server stopping")
                entry.handler?.cancel()
            }
            return state.connections.values.map(\.signal)
        }
        acceptSignal?.signal()
        signals.forEach { $0.signal() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state in
                if state.running == 0 { return true }
                state.idle.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    // MARK: - The connection table

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// One thread, task or loop of the server has ended.
    func finished() {
        let waiting: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.idle = [] }
            return state.idle
        }
        waiting.forEach { $0.resume() }
    }

    /// A handshake succeeded: starts `handler` on `session` as a task the server tracks.
    func open(_ id: Int, session: WebSocketSession, handler: @escaping Handler) {
        let stopping = state.withLock { state in
            state.connections[id]?.session = session
            state.running += 1
            return state.stopping
        }
        if stopping { session.close(.goingAway, reason: "server stopping") }
        let task = Task { [self] in
            await handler(session)
            session.close()
            finished()
        }
        let gone = state.withLock { state in
            guard state.connections[id] != nil else { return true }
            state.connections[id]?.handler = task
            return false
        }
        if gone || stopping { task.cancel() }
    }

    /// The connection ended: its handler, if any, is cancelled.
    func closed(_ id: Int) {
        let entry = state.withLock { $0.connections.removeValue(forKey: id) }
        entry?.session?.continuation.finish()
        entry?.handler?.cancel()
    }

    // MARK: - Accepting

    private func acceptLoop(_ listener: SocketDescriptor, signal: WakeSignal) {
        while !isStopping {
            var entries = [pollfd(fd: listener.fd, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: signal.readFD, events: Int16(POLLIN), revents: 0)]
            guard poll(&entries, 2, -1) >= 0 || errno == EINTR else { return }
            if entries[1].revents != 0 { signal.drain() }
            guard !isStopping else { return }
            guard entries[0].revents & Int16(POLLIN) != 0 else { continue }
            let fd = accept(listener.fd, nil, nil)
            guard fd >= 0 else {
                // Out of descriptors (or memory): the pending connection stays queued and poll would report it
                // again at once, so wait a little instead of spinning.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM { usleep(50_000) }
                continue
            }
            let socket = SocketDescriptor(fd)
            // accept4 needs _GNU_SOURCE, which Swift's Glibc module does not define.
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var noDelay: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
            admit(socket)
        }
    }

    /// Registers the connection and starts its thread, or answers 503 when the server is full.
    private func admit(_ socket: SocketDescriptor) {
        guard let signal = WakeSignal() else { return }
        enum Admission { case admitted(Int), full, stopping }
        let admission: Admission = state.withLock { state in
            guard !state.stopping else { return .stopping }
            guard state.connections.count < limits.maxConnections else { return .full }
            state.nextID += 1
            state.connections[state.nextID] = Entry(signal: signal)
            state.running += 1
            return .admitted(state.nextID)
        }
        guard case .admitted(let id) = admission else {
            // A server that is stopping just closes the connection; a full one says why.
            guard case .full = admission else { return }
            let refusal = WebSocketHandshake.refusal(503, "Service Unavailable", message: "too many connections")
            _ = refusal.withUnsafeBytes { send(socket.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            return
        }
        let connection = WebSocketConnection(id: id, socket: socket, signal: signal, server: self)
        let started = BlockingWorkThread.start {
            connection.run()
        }
        if !started {
            closed(id)
            finished()
        }
    }

    /// A listening socket on `address`:`port`, and the port bound.
    private static func listen(on address: String, port: UInt16) throws(ServeSocketError) -> (SocketDescriptor, UInt16) {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 {
            (family, length) = (AF_INET, socklen_t(MemoryLayout<sockaddr_in>.size))
            fill(&storage, as: sockaddr_in.self) { ($0.sin_family, $0.sin_port, $0.sin_addr) = (sa_family_t(AF_INET), port.bigEndian, ipv4) }
        } else if inet_pton(AF_INET6, address, &ipv6) == 1 {
            (family, length) = (AF_INET6, socklen_t(MemoryLayout<sockaddr_in6>.size))
            fill(&storage, as: sockaddr_in6.self) { ($0.sin6_family, $0.sin6_port, $0.sin6_addr) = (sa_family_t(AF_INET6), port.bigEndian, ipv6) }
        } else {
            throw .badAddress(address)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw systemError("socket") }
        let listener = SocketDescriptor(fd)
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0 else { throw systemError("bind \(address) port \(port)") }
        guard Glibc.listen(fd, 64) == 0 else { throw systemError("listen") }
        var named = sockaddr_storage()
        var namedLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let gotName = withUnsafeMutablePointer(to: &named) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &namedLength) }
        }
        guard gotName == 0 else { throw systemError("getsockname") }
        let boundPort = withUnsafePointer(to: &named) { pointer in
            family == AF_INET
                ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return (listener, boundPort)
    }

    /// Sets the fields of `storage` read as the address type `type`.
    private static func fill<Address>(_ storage: inout sockaddr_storage, as type: Address.Type, _ body: (inout Address) -> Void) {
        withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: type, capacity: 1) { body(&$0.pointee) } }
    }

    private static func systemError(_ call: String) -> ServeSocketError {
        .system(call: call, message: String(cString: strerror(errno)))
    }
}
