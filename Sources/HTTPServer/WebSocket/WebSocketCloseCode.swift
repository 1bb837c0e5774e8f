/// The status code of a WebSocket close frame (RFC 6455 §7.4): why a side ends the connection.
package struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent on the wire.
    package let rawValue: UInt16

    /// A code as sent on the wire.
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled (a search has finished).
    package static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the server is going away (it is stopping).
    package static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol (an unmasked frame, a reserved bit, a bad opcode…).
    package static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of message the endpoint does not take.
    package static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: a text message that is not UTF-8.
    package static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message the endpoint refuses by its policy.
    package static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message larger than the endpoint takes.
    package static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met a condition that kept it from answering.
    package static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a peer may send this code in a close frame: 1000–1003, 1007–1011 and 3000–4999 (RFC 6455
    /// §7.4.1–2); 1005, 1006 and 1015 stand for situations and never go on the wire.
    package var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    package var description: String { "\(rawValue)" }
}
