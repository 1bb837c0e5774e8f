import BookRuleCrypto
import Foundation

/// A client's opening handshake (RFC 6455 §4.2.1), checked on the request libmicrohttpd has read, and the
/// server's answer.
///
/// Only what a WebSocket upgrade needs is taken: `GET` over HTTP/1.1, `Upgrade: websocket`,
/// `Connection: Upgrade`, `Sec-WebSocket-Version: 13`, a `Sec-WebSocket-Key` that is 16 bytes in base64, and
/// one `Host`. Anything else is a bad handshake (400).
struct WebSocketHandshake: Sendable, Equatable {
    /// The client's `Sec-WebSocket-Key`.
    var key: String

    /// Why a request is not a WebSocket handshake.
    struct Malformed: Error, Sendable, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Whether `request` asks to become a WebSocket: its `Upgrade` header names `websocket`.
    static func isRequested(by request: HTTPServerRequest) -> Bool {
        request.headers.contains { $0.name.lowercased() == "upgrade" && tokens($0.value).contains("websocket") }
    }

    /// Checks `request`, sent over HTTP `version` (`HTTP/1.1`).
    init(_ request: HTTPServerRequest, version: String) throws(Malformed) {
        guard request.method == "GET" else { throw Malformed("a WebSocket handshake is a GET, not \(request.method)") }
        guard version == "HTTP/1.1" else { throw Malformed("a WebSocket handshake needs HTTP/1.1, not \(version)") }
        func values(_ name: String) -> [String] {
            request.headers.filter { $0.name.lowercased() == name }.flatMap { Self.tokens($0.value) }
        }
        guard request.headerCount("Host") == 1, request.header("Host")?.isEmpty == false else {
            throw Malformed("a WebSocket handshake needs one Host header")
        }
        guard values("upgrade").contains("websocket") else { throw Malformed("no Upgrade: websocket") }
        guard values("connection").contains("upgrade") else { throw Malformed("no Connection: Upgrade") }
        guard request.header("Sec-WebSocket-Version") == "13" else { throw Malformed("Sec-WebSocket-Version is not 13") }
        guard let key = request.header("Sec-WebSocket-Key"), let decoded = Data(base64Encoded: key), decoded.count == 16 else {
            throw Malformed("Sec-WebSocket-Key is not 16 bytes in base64")
        }
        self.key = key
    }

    /// The `Sec-WebSocket-Accept` value for `key`: base64 of the SHA-1 of the key and RFC 6455's GUID; nil when
    /// this machine's libcrypto refuses SHA-1 (a FIPS-only configuration), which a server checks at its start.
    static func acceptValue(for key: String) -> String? {
        guard canAnswer else { return nil }
        var digest = MessageDigest(.sha1)
        digest.update(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11")
        return Data(digest.finalize()).base64EncodedString()
    }

    /// Whether handshakes can be answered here (SHA-1 works).
    static var canAnswer: Bool { MessageDigest.Algorithm.sha1.isAvailable }

    /// The comma-separated tokens of a header value, lower-cased.
    private static func tokens(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
