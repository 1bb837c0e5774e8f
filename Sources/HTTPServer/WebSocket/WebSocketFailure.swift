/// Why a WebSocket connection is being failed by this side, with the close code the peer is sent.
enum WebSocketFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer broke RFC 6455's framing rules.
    case protocolViolation(String)
    /// A frame or a reassembled message over the size cap.
    case tooBig(limit: Int)
    /// A text message (or a close reason) that is not UTF-8.
    case invalidUTF8

    /// The code the close frame carries.
    var closeCode: WebSocketCloseCode {
        switch self {
        case .protocolViolation: .protocolError
        case .tooBig: .messageTooBig
        case .invalidUTF8: .invalidPayload
        }
    }

    var description: String {
        switch self {
        case .protocolViolation(let reason): reason
        case .tooBig(let limit): "message over \(limit) bytes"
        case .invalidUTF8: "text is not UTF-8"
        }
    }
}
