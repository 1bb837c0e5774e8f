/// One whole message from a WebSocket client, its fragments joined.
package enum WebSocketMessage: Sendable, Equatable {
    /// A text message (checked to be UTF-8).
    case text(String)
    /// A binary message.
    case binary([UInt8])
}

/// Joins a client's data frames into messages: a text or binary frame starts one, continuation frames add to
/// it, and the frame with `fin` ends it. The whole message is held to `maxMessage` bytes.
struct WebSocketMessageAssembler: Sendable {
    let maxMessage: Int
    private var opcode: WebSocketOpcode?
    private var parts: [UInt8] = []

    init(maxMessage: Int) {
        self.maxMessage = maxMessage
    }

    /// Takes one data frame (text, binary or continuation); the message when `frame` ends one.
    mutating func take(_ frame: WebSocketFrame) throws(WebSocketFailure) -> WebSocketMessage? {
        switch frame.opcode {
        case .text, .binary:
            guard opcode == nil else { throw .protocolViolation("a new message began before the last one ended") }
            opcode = frame.opcode
            parts = []
        case .continuation:
            guard opcode != nil else { throw .protocolViolation("a continuation frame with no message to continue") }
        case .close, .ping, .pong:
            return nil
        }
        guard parts.count + frame.payload.count <= maxMessage else { throw .tooBig(limit: maxMessage) }
        parts.append(contentsOf: frame.payload)
        guard frame.fin, let kind = opcode else { return nil }
        opcode = nil
        let bytes = parts
        parts = []
        if kind == .binary { return .binary(bytes) }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .invalidUTF8 }
        return .text(text)
    }
}
