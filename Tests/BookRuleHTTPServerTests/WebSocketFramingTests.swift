import BookRuleHTTP
@testable import BookRuleHTTPServer
import Testing
import TestSupport

@Suite("WebSocket framing and handshake parsing, without a socket")
struct WebSocketFramingTests {
    static func masked(_ first: UInt8, _ payload: [UInt8], mask: [UInt8] = [1, 2, 3, 4]) -> [UInt8] {
        var bytes: [UInt8] = [first]
        if payload.count < 126 {
            bytes.append(0x80 | UInt8(payload.count))
        } else {
            bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        return bytes + mask + payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    }

    @Test func aFrameSplitAcrossReadsIsReadOnceWhole() throws {
        let bytes = Self.masked(0x81, Array(repeating: 0x61, count: 300))
        var reader = WebSocketFrameReader(maxPayload: 1000)
        for byte in bytes.dropLast() {
            reader.append([byte])
            #expect(try reader.next() == nil)
        }
        reader.append(bytes.suffix(1))
        #expect(try reader.next() == WebSocketFrame(fin: true, opcode: .text, payload: Array(repeating: 0x61, count: 300)))
        #expect(reader.pendingCount == 0)
    }

    @Test func headerRulesAreChecked() {
        let cases: [([UInt8], WebSocketFailure)] = [
            (Self.masked(0xC1, [1]), .protocolViolation("reserved bits set without an extension")),
            (Self.masked(0x83, [1]), .protocolViolation("unknown opcode 3")),
            (Self.masked(0x09, [1]), .protocolViolation("a control frame must not be fragmented")),
            (Self.masked(0x89, Array(repeating: 0, count: 126)), .protocolViolation("a control frame carries at most 125 bytes")),
            ([0x81, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 1], .protocolViolation("payload length with its top bit set")),
            ([0x82, 0xFF, 0, 0, 0, 0, 0, 1, 0, 0], .tooBig(limit: 1000)),
        ]
        for (bytes, failure) in cases {
            var reader = WebSocketFrameReader(maxPayload: 1000)
            reader.append(bytes)
            #expect(throws: failure) { try reader.next() }
        }
    }

    @Test func randomBytesNeverTrapTheReaderOrTheAssembler() {
        var generator = SeededRandomNumberGenerator(seed: 23)
        for _ in 0..<2000 {
            var reader = WebSocketFrameReader(maxPayload: 200)
            var assembler = WebSocketMessageAssembler(maxMessage: 200)
            let count = Int(generator.next() % 64)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            // Mostly well-formed first bytes (masked, no reserved bits), so the lengths and payloads get read.
            if bytes.count >= 2, generator.next() % 4 != 0 {
                bytes[0] &= 0x8F
                bytes[1] |= 0x80
            }
            reader.append(bytes)
            while let frame = try? reader.next() { _ = try? assembler.take(frame) }
        }
    }

    @Test func messagesAreReassembledAndTextMustBeUTF8() throws {
        var assembler = WebSocketMessageAssembler(maxMessage: 100)
        #expect(throws: WebSocketFailure.protocolViolation("a continuation frame with no message to continue")) {
            try assembler.take(WebSocketFrame(fin: true, opcode: .continuation, payload: [1]))
        }
        #expect(try assembler.take(WebSocketFrame(fin: false, opcode: .binary, payload: [1, 2])) == nil)
        #expect(throws: WebSocketFailure.protocolViolation("a new message began before the last one ended")) {
            try assembler.take(WebSocketFrame(fin: true, opcode: .text, payload: [0x61]))
        }
        var fresh = WebSocketMessageAssembler(maxMessage: 100)
        #expect(try fresh.take(WebSocketFrame(fin: false, opcode: .text, payload: [0xE6, 0x98])) == nil)
        #expect(try fresh.take(WebSocketFrame(fin: true, opcode: .continuation, payload: [0x9F])) == .text("星"))
        #expect(throws: WebSocketFailure.invalidUTF8) { try fresh.take(WebSocketFrame(fin: true, opcode: .text, payload: [0xFF])) }
    }

    @Test func serverFramesUseTheShortestLengthAndCloseReasonsFitAControlFrame() {
        #expect(WebSocketFrame(fin: true, opcode: .text, payload: Array(repeating: 0, count: 125)).encoded.prefix(2) == [0x81, 125])
        #expect(WebSocketFrame(fin: true, opcode: .text, payload: Array(repeating: 0, count: 126)).encoded.prefix(4) == [0x81, 126, 0, 126])
        #expect(WebSocketFrame(fin: true, opcode: .binary, payload: Array(repeating: 0, count: 70_000)).encoded.prefix(10)
            == [0x82, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
        let close = WebSocketFrame.close(.normal, reason: String(repeating: "星", count: 60))
        #expect(close.payload.count <= 125 && close.payload.prefix(2) == [0x03, 0xE8])
        #expect(String(validating: close.payload.dropFirst(2), as: UTF8.self) == String(repeating: "星", count: 41))
    }

    @Test func handshakeHeadersAreReadCaseInsensitivelyWithListValues() throws {
        let request = HTTPServerRequest(method: "GET", path: "/searchBook", query: [("token", "abc")], headers: [
            ("host", "example.test:1123"), ("UPGRADE", "WebSocket"), ("Connection", "keep-alive, Upgrade"),
            ("sec-websocket-key", WebSocketWireClient.exampleKey), ("Sec-WebSocket-Version", "13"),
        ])
        #expect(WebSocketHandshake.isRequested(by: request))
        #expect(try WebSocketHandshake(request, version: "HTTP/1.1").key == WebSocketWireClient.exampleKey)
        #expect(throws: WebSocketHandshake.Malformed("a WebSocket handshake needs HTTP/1.1, not HTTP/1.0")) {
            try WebSocketHandshake(request, version: "HTTP/1.0")
        }
        var plain = request
        plain.headers.removeAll { $0.name == "UPGRADE" }
        #expect(!WebSocketHandshake.isRequested(by: plain))
    }
}
