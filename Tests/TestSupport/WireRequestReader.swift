import Foundation
import BookRuleDocument
import BookRuleHTTP

/// Reads one HTTP/1.1 request (the head, then a `Content-Length` body) from bytes as a test server's socket
/// delivers them. The loopback servers differ in how they wait for bytes, not in how they parse them.
package struct WireRequestReader {
    /// A head larger than this is refused.
    package static let maxHeadBytes = 64 << 10
    /// A body larger than this is refused.
    package static let maxBodyBytes = 16 << 20

    private var buffer: [UInt8] = []
    private var headEnd: Int?
    private var contentLength = 0

    /// What the bytes so far amount to.
    package enum Progress {
        case needMore
        case complete(WireRequest)
        case invalid
    }

    /// Adds `bytes` (what one read gave) and says whether the request is complete.
    mutating func add(_ bytes: some Collection<UInt8>) -> Progress {
        buffer.append(contentsOf: bytes)
        if headEnd == nil {
            guard let end = Self.headEnd(in: buffer) else {
                return buffer.count > Self.maxHeadBytes ? .invalid : .needMore
            }
            headEnd = end
            let head = String(decoding: buffer[..<end], as: UTF8.self)
            for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                contentLength = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: " ")) ?? 0
            }
            if contentLength < 0 || contentLength > Self.maxBodyBytes { return .invalid }
        }
        guard let end = headEnd, buffer.count >= end + contentLength else { return .needMore }
        let head = String(decoding: buffer[..<(end - 4)], as: UTF8.self)
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        guard !lines.isEmpty else { return .invalid }
        let requestLine = lines.removeFirst().split(separator: " ").map(String.init)
        guard requestLine.count >= 2 else { return .invalid }
        let headers = lines.compactMap { line -> HTTPHeader? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return HTTPHeader(String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " \t"))
        }
        return .complete(WireRequest(
            method: requestLine[0], target: requestLine[1], headers: headers,
            body: Array(buffer[end..<(end + contentLength)])))
    }

    /// Reads with `read` (nil or empty: the client went away or sent nothing in time) until a request is
    /// complete; nil when none came or it was malformed.
    package static func read(with read: () -> [UInt8]?) -> WireRequest? {
        var reader = WireRequestReader()
        while true {
            guard let bytes = read(), !bytes.isEmpty else { return nil }
            switch reader.add(bytes) {
            case .needMore: continue
            case .complete(let request): return request
            case .invalid: return nil
            }
        }
    }

    private static func headEnd(in buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for index in 0...(buffer.count - 4)
        where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
            return index + 4
        }
        return nil
    }
}
