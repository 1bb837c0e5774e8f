import BookRuleScript
import Foundation

/// A client's opening handshake (RFC 6455 §4.2.1), read from the HTTP request head, and the server's answer.
///
/// Only what a WebSocket upgrade needs is taken: `GET` over HTTP/1.1, `Host`, `Upgrade: websocket`,
/// `Connection: Upgrade`, `Sec-WebSocket-Version: 13` and a `Sec-WebSocket-Key` that is 16 bytes in base64.
/// Anything else is a bad handshake (400).
struct WebSocketHandshake: Sendable, Equatable {
    /// The request target as sent: the path and any query (`/searchBook?token=…`).
    var target: String
    /// The header fields, names lower-cased; a repeated field's values joined with ", " (`cookie` with "; ").
    var headers: [String: String]
    /// The client's `Sec-WebSocket-Key`.
    var key: String

    /// The path of the target, without the query.
    var path: String {
        String(target.prefix { $0 != "?" })
    }

    /// Why a request head is not a WebSocket handshake.
    struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads the request head `bytes` (up to and including the blank line).
    init(head bytes: [UInt8]) throws(Malformed) {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Malformed("the request head is not UTF-8") }
        var lines = text.components(separatedBy: "\r\n")
        while lines.last == "" { lines.removeLast() }
        guard let requestLine = lines.first else { throw Malformed("no request line") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw Malformed("the request line is not METHOD TARGET VERSION") }
        guard parts[0] == "GET" else { throw Malformed("a WebSocket handshake is a GET, not \(parts[0])") }
        guard parts[2] == "HTTP/1.1" else { throw Malformed("a WebSocket handshake needs HTTP/1.1, not \(parts[2])") }
        guard parts[1].hasPrefix("/") else { throw Malformed("the target must be a path") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw Malformed("a header line without a colon") }
            let name = line[..<colon].lowercased()
            guard !name.isEmpty, name.allSatisfy(Self.isTokenCharacter) else { throw Malformed("a bad header name") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            if let earlier = headers[name] {
                headers[name] = earlier + (name == "cookie" ? "; " : ", ") + value
            } else {
                headers[name] = value
            }
        }
        guard headers["host"].map({ !$0.isEmpty }) == true else { throw Malformed("no Host header") }
        guard Self.tokens(headers["upgrade"]).contains("websocket") else { throw Malformed("no Upgrade: websocket") }
        guard Self.tokens(headers["connection"]).contains("upgrade") else { throw Malformed("no Connection: Upgrade") }
        guard headers["sec-websocket-version"] == "13" else { throw Malformed("Sec-WebSocket-Version is not 13") }
        guard let key = headers["sec-websocket-key"], let decoded = Data(base64Encoded: key), decoded.count == 16 else {
            throw Malformed("Sec-WebSocket-Key is not 16 bytes in base64")
        }
        self.target = String(parts[1])
        self.headers = headers
        self.key = key
    }

    /// The `Sec-WebSocket-Accept` value for `key`: base64 of the SHA-1 of the key and RFC 6455's GUID. Only
    /// reached through a started `ServeSocketServer`, which has checked that SHA-1 is available.
    static func acceptValue(for key: String) -> String {
        var digest = MessageDigest(.sha1)
        digest.update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
        return Data(digest.finalize()).base64EncodedString()
    }

    /// The 101 answer that opens the connection.
    var switchingProtocols: [UInt8] {
        Array(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Self.acceptValue(for: key))\r\n\r\n").utf8)
    }

    /// A refusal with `status`, a short plain-text body, and the connection closed after it.
    static func refusal(_ status: Int, _ reason: String, message: String) -> [UInt8] {
        let body = message + "\n"
        var head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/plain; charset=utf-8\r\n"
        if status == 400 { head += "Sec-WebSocket-Version: 13\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        return Array((head + body).utf8)
    }

    /// The comma-separated tokens of a header value, lower-cased.
    private static func tokens(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue, ascii > 32, ascii < 127 else { return false }
        return !"\"(),/:;<=>?@[\\]{}".contains(character)
    }
}
