/// One WebSocket frame as read from a client (unmasked already) or as this server writes it.
struct WebSocketFrame: Sendable, Equatable {
    /// The last frame of its message.
    var fin: Bool
    /// What the frame is.
    var opcode: WebSocketOpcode
    /// The application data (a client's, with the mask removed).
    var payload: [UInt8]

    /// The frame's bytes as a server sends them: never masked (RFC 6455 §5.1), the shortest length form.
    var encoded: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(payload.count + 10)
        bytes.append((fin ? 0x80 : 0) | opcode.rawValue)
        switch payload.count {
        case 0..<126:
            bytes.append(UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(126)
            bytes.append(UInt8(payload.count >> 8))
            bytes.append(UInt8(payload.count & 0xFF))
        default:
            bytes.append(127)
            let length = UInt64(payload.count)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((length >> UInt64(shift)) & 0xFF)) }
        }
        bytes.append(contentsOf: payload)
        return bytes
    }

    /// A close frame carrying `code` and `reason`, the reason cut to fit a control frame's 125 bytes on a
    /// character boundary.
    static func close(_ code: WebSocketCloseCode, reason: String) -> WebSocketFrame {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var kept = ""
        for character in reason {
            guard kept.utf8.count + String(character).utf8.count <= 123 else { break }
            kept.append(character)
        }
        payload.append(contentsOf: kept.utf8)
        return WebSocketFrame(fin: true, opcode: .close, payload: payload)
    }
}

/// Reads a client's frames out of the bytes as they arrive, checking every rule RFC 6455 puts on a client's
/// frame header: masked, no reserved bits, a known opcode, control frames short and whole, a length in range.
struct WebSocketFrameReader: Sendable {
    /// The largest payload one frame may carry; a longer one fails with `tooBig` before its bytes are awaited.
    let maxPayload: Int
    private var buffer: [UInt8] = []
    private var start = 0

    init(maxPayload: Int) {
        self.maxPayload = maxPayload
    }

    /// Bytes received but not yet read as frames.
    var pendingCount: Int { buffer.count - start }

    /// Adds received bytes.
    mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive.
    mutating func next() throws(WebSocketFailure) -> WebSocketFrame? {
        let available = buffer.count - start
        guard available >= 2 else { return nil }
        let first = buffer[start]
        let second = buffer[start + 1]
        guard first & 0x70 == 0 else { throw .protocolViolation("reserved bits set without an extension") }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            throw .protocolViolation("unknown opcode \(first & 0x0F)")
        }
        let fin = first & 0x80 != 0
        guard second & 0x80 != 0 else { throw .protocolViolation("a client frame must be masked") }
        var headerLength = 2
        var length = UInt64(second & 0x7F)
        if length == 126 {
            guard available >= 4 else { return nil }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            headerLength = 4
        } else if length == 127 {
            guard available >= 10 else { return nil }
            length = 0
            for offset in 2..<10 { length = length << 8 | UInt64(buffer[start + offset]) }
            guard length >> 63 == 0 else { throw .protocolViolation("payload length with its top bit set") }
            headerLength = 10
        }
        if opcode.isControl {
            guard fin else { throw .protocolViolation("a control frame must not be fragmented") }
            guard length <= 125 else { throw .protocolViolation("a control frame carries at most 125 bytes") }
        }
        guard length <= UInt64(maxPayload) else { throw .tooBig(limit: maxPayload) }
        let payloadLength = Int(length)
        let maskStart = start + headerLength
        guard available >= headerLength + 4 + payloadLength else { return nil }
        let mask = Array(buffer[maskStart..<maskStart + 4])
        let payloadStart = maskStart + 4
        var payload = [UInt8](repeating: 0, count: payloadLength)
        for index in 0..<payloadLength {
            payload[index] = buffer[payloadStart + index] ^ mask[index % 4]
        }
        start = payloadStart + payloadLength
        return WebSocketFrame(fin: fin, opcode: opcode, payload: payload)
    }
}
