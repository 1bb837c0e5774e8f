/// The status code of a WebSocket close frame (RFC 6455 §7.4): why a side ends the connection.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as sent on the wire.
    public let rawValue: UInt16

    /// A code as sent on the wire.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled (a search has finished).
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the server is going away (it is stopping).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the peer broke the protocol (an unmasked frame, a reserved bit, a bad opcode…).
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: a kind of message the endpoint does not take.
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: a text message that is not UTF-8.
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message the endpoint refuses by its policy.
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message larger than the endpoint takes.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1011: the server met a condition that kept it from answering.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)

    /// Whether a peer may send this code in a close frame: 1000–1003, 1007–1011 and 3000–4999 (RFC 6455
    /// §7.4.1–2); 1005, 1006 and 1015 stand for situations and never go on the wire.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1011, 3000...4999: true
        default: false
        }
    }

    public var description: String { "\(rawValue)" }
}
