#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BookRuleDocument
import BookRuleJSON
import BookRuleLocking

/// The DevTools protocol over a browser's pipe: one JSON message per command, answer or event, each ended by a
/// NUL byte. Commands are answered by `id`; events go to the handler of their `sessionId` (a page).
///
/// A reader thread of its own reads the socket; when it closes (the browser died), every command waiting
/// fails with `BrowserError.browserExited`, and so does every later one.
///
/// An answer is handed over through `state`, not through the continuation: the read thread stores it in
/// `answers` under the lock and then resumes the waiting task with nothing, and the task takes it from
/// `answers` under the same lock. A value resumed through `CheckedContinuation` from this plain thread reached
/// a task running on a custom executor (`SerialQueueExecutor`, a dispatch queue) with no happens-before
/// ThreadSanitizer could see, and the message parsed here showed up as a data race in `make sanitize-thread`;
/// a pthread mutex (`Locked`) it sees.
final class DevToolsPipe: Sendable {
    /// An event: its method (`Fetch.requestPaused`) and parameters.
    typealias EventHandler = @Sendable (_ method: String, _ params: JSONObject) -> Void

    private struct State {
        var nextID = 1
        var waiting: [Int: (method: String, continuation: CheckedContinuation<Void, Never>)] = [:]
        /// The outcome of each command whose waiter has been resumed and not yet looked.
        var answers: [Int: Result<JSONObject, any Error>] = [:]
        var handlers: [String: EventHandler] = [:]
        var closed = false
    }

    private let socket: Int32
    private let state = Locked(State())
    private let writeLock = Locked(())

    /// Starts reading `socket` (which `ChromiumProcess` owns and closes).
    init(socket: Int32) throws(BrowserError) {
        self.socket = socket
        let started = BlockingWorkThread.start { [self] in readLoop() }
        if !started { throw .startFailed("no thread for the DevTools pipe") }
    }

    /// Whether the browser's end has closed.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Sends `method` with `params` (to the page `session`, or the browser) and waits for its result.
    func call(_ method: String, _ params: [(String, JSONValue)] = [], session: String? = nil) async throws -> JSONObject {
        let id = state.withLock { state -> Int? in
            guard !state.closed else { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { throw BrowserError.browserExited }
        var members: [(String, JSONValue)] = [("id", .number(String(id))), ("method", .string(method))]
        if let session { members.append(("sessionId", .string(session))) }
        members.append(("params", Self.object(params)))
        let text = Self.object(members).serialized()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let accepted = state.withLock { state -> Bool in
                    guard !state.closed else {
                        state.answers[id] = .failure(BrowserError.browserExited)
                        return false
                    }
                    state.waiting[id] = (method, continuation)
                    return true
                }
                guard accepted else { return continuation.resume() }
                if !write(text) { finish(id, .failure(BrowserError.browserExited)) }
            }
        } onCancel: {
            finish(id, .failure(CancellationError()))
        }
        // Every resumption stored the outcome first, under the lock taken here.
        let answer = state.withLock { $0.answers.removeValue(forKey: id) } ?? .failure(BrowserError.browserExited)
        return try answer.get()
    }

    /// Sends `method` without waiting for its answer (fulfilling a paused request).
    func send(_ method: String, _ params: [(String, JSONValue)], session: String?) {
        Task { _ = try? await call(method, params, session: session) }
    }

    /// Routes the events of `session` to `handler` (nil stops them).
    func setHandler(_ handler: EventHandler?, for session: String) {
        state.withLock { $0.handlers[session] = handler }
    }

    /// Ends the wait for command `id` (if it still waits) with `outcome`: stored in `answers`, then resumed.
    private func finish(_ id: Int, _ outcome: sending Result<JSONObject, any Error>) {
        state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiting.removeValue(forKey: id) else { return nil }
            state.answers[id] = outcome
            return waiter.continuation
        }?.resume()
    }

    private func write(_ text: String) -> Bool {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return writeLock.withLock { _ in
            var offset = 0
            while offset < bytes.count {
                let sent = bytes.withUnsafeBytes { buffer in
                    buffer.baseAddress.map { Glibc.send(socket, $0 + offset, buffer.count - offset, Int32(MSG_NOSIGNAL)) } ?? -1
                }
                if sent < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += sent
            }
            return true
        }
    }

    private func readLoop() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            var start = pending.count
            pending.append(contentsOf: chunk[0..<count])
            while let end = pending[start...].firstIndex(of: 0) {
                dispatch(Array(pending[..<end]))
                pending.removeSubrange(...end)
                start = 0
            }
        }
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.closed = true
            for id in state.waiting.keys { state.answers[id] = .failure(BrowserError.browserExited) }
            defer { state.waiting.removeAll() }
            return state.waiting.values.map(\.continuation)
        }
        waiting.forEach { $0.resume() }
        // The socket is closed by its owner, `ChromiumProcess.terminate`, never here: a number closed here could
        // be reused before the owner shuts it.
    }

    private func dispatch(_ bytes: [UInt8]) {
        guard let message = try? JSONParser.parse(bytes).value.objectValue else { return }
        if let id = message["id"]?.value.intValue {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let (method, continuation) = state.waiting.removeValue(forKey: id) else { return nil }
                if let error = message["error"]?.value.objectValue {
                    state.answers[id] = .failure(BrowserError.protocolError(
                        method: method, message: error["message"]?.value.stringValue ?? "unknown error"))
                } else {
                    state.answers[id] = .success(message["result"]?.value.objectValue ?? JSONObject())
                }
                return continuation
            }
            continuation?.resume()
            return
        }
        guard let method = message["method"]?.value.stringValue else { return }
        let session = message["sessionId"]?.value.stringValue ?? ""
        let params = message["params"]?.value.objectValue ?? JSONObject()
        if let handler = state.withLock({ $0.handlers[session] }) { handler(method, params) }
    }

    /// A JSON object of `members` (the protocol's messages carry no source locations).
    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members.map { ($0.0, node($0.1)) }))
    }

    /// A JSON array of `values`.
    static func array(_ values: [JSONValue]) -> JSONValue {
        .array(values.map(node))
    }

    private static func node(_ value: JSONValue) -> JSONNode {
        JSONNode(value, location: SourceLocation(line: 0, column: 0))
    }
}
