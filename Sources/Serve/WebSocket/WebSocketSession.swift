/// One open WebSocket connection as a route's handler sees it: the handshake's target and headers, the
/// client's messages as they arrive, and sending text back. Sending never blocks: frames are queued for the
/// connection's own thread, so a handler can send from async code at any time.
///
/// The messages end when the connection closes, for whatever reason; the handler's task is cancelled then too.
public final class WebSocketSession: Sendable {
    /// The handshake's request target as sent (path and query).
    public let target: String
    /// The handshake's header fields, names lower-cased.
    public let headers: [String: String]
    /// The client's messages, in order; the stream ends when the connection does.
    public let messages: AsyncStream<WebSocketMessage>

    /// Why a message could not be sent.
    public enum SendError: Error, Sendable, CustomStringConvertible {
        /// The connection is closing or closed.
        case closed
        /// Too much is waiting to go out: the client is not reading. The connection is being closed.
        case overloaded

        public var description: String {
            switch self {
            case .closed: "the WebSocket connection is closed"
            case .overloaded: "the client is not reading: too much is waiting to be sent"
            }
        }
    }

    let outbox: WebSocketOutbox
    let continuation: AsyncStream<WebSocketMessage>.Continuation

    init(handshake: WebSocketHandshake, outbox: WebSocketOutbox, unreadMessages: Int) {
        target = handshake.target
        headers = handshake.headers
        self.outbox = outbox
        (messages, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self, bufferingPolicy: .bufferingOldest(unreadMessages))
    }

    /// The path of the target, without the query (`/searchBook`).
    public var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// Sends `text` as one text message.
    public func send(_ text: String) throws(SendError) {
        do {
            try outbox.enqueue(WebSocketFrame(fin: true, opcode: .text, payload: Array(text.utf8)))
        } catch .overloaded {
            close(.policyViolation, reason: "client not reading")
            throw .overloaded
        } catch {
            throw .closed
        }
    }

    /// Starts the closing handshake with `code` and `reason` after what is already queued; later calls do
    /// nothing. The connection ends once the client answers, or after the server's close deadline.
    public func close(_ code: WebSocketCloseCode = .normal, reason: String = "") {
        outbox.enqueueClose(code, reason: reason)
    }

    /// Whether messages can still be sent.
    public var isOpen: Bool { !outbox.closeQueued }
}
