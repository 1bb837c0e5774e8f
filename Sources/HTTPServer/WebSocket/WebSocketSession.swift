/// One open WebSocket connection as a route's handler sees it: the handshake's target and headers, the
/// client's messages as they arrive, and sending text back. Sending never blocks: frames are queued for the
/// server's WebSocket thread, so a handler can send from async code at any time.
///
/// The messages end when the connection closes, for whatever reason; the handler's task is cancelled then too.
package final class WebSocketSession: Sendable {
    /// The handshake request (its path, query, headers and cookies).
    package let request: HTTPServerRequest
    /// The client's messages, in order; the stream ends when the connection does.
    package let messages: AsyncStream<WebSocketMessage>

    /// Why a message could not be sent.
    package enum SendError: Error, Sendable, CustomStringConvertible {
        /// The connection is closing or closed.
        case closed
        /// Too much is waiting to go out: the client is not reading. The connection is being closed.
        case overloaded

        package var description: String {
            switch self {
            case .closed: "the WebSocket connection is closed"
            case .overloaded: "the client is not reading: too much is waiting to be sent"
            }
        }
    }

    let outbox: WebSocketOutbox
    let continuation: AsyncStream<WebSocketMessage>.Continuation

    init(request: HTTPServerRequest, outbox: WebSocketOutbox, unreadMessages: Int) {
        self.request = request
        self.outbox = outbox
        (messages, continuation) = AsyncStream.makeStream(of: WebSocketMessage.self, bufferingPolicy: .bufferingOldest(unreadMessages))
    }

    /// The path of the handshake, without the query (`/searchBook`).
    package var path: String { request.path }

    /// Sends `text` as one text message.
    package func send(_ text: String) throws(SendError) {
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
    package func close(_ code: WebSocketCloseCode = .normal, reason: String = "") {
        outbox.enqueueClose(code, reason: reason)
    }

    /// Whether messages can still be sent.
    package var isOpen: Bool { !outbox.closeQueued }
}
