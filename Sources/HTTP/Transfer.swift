import CCurl
import BookRuleDocument

/// The state of one transfer as libcurl's callbacks fill it in, on the transfer thread only.
final class Transfer {
    let limit: Int
    let expectsBody: Bool
    let cancel: CancelState
    let url: String
    let sink: (any HTTPBodySink)?
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []
    var status = 0
    var bodyTooLarge = false
    /// The current response goes to the sink (a final response of a `stream`), not into `body`.
    var streaming = false
    /// Body bytes the sink accepted.
    var delivered = 0
    /// The sink returned false.
    var stoppedBySink = false
    /// Ports of this machine the transfer may not connect to.
    let reservedPorts: ReservedLocalPorts?
    /// The address and port refused by `reservedPorts` (the transfer was aborted before its request was sent).
    var refusedDestination: String?

    init(limit: Int, expectsBody: Bool, cancel: CancelState, url: String, sink: (any HTTPBodySink)?,
         reservedPorts: ReservedLocalPorts? = nil) {
        self.reservedPorts = reservedPorts
        self.limit = limit
        self.expectsBody = expectsBody
        self.cancel = cancel
        self.url = url
        self.sink = sink
    }

    /// Adds body bytes (or passes them to the sink); false (abort) when the cap would be exceeded, the sink
    /// stopped or the task was cancelled.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if cancel.isCancelled { return false }
        if streaming, let sink {
            guard sink.receiveBody(bytes) else {
                stoppedBySink = true
                return false
            }
            delivered += bytes.count
            return true
        }
        let needed = body.count + bytes.count
        if needed > limit {
            bodyTooLarge = true
            return false
        }
        if body.capacity < needed {
            body.reserveCapacity(min(limit, max(needed, body.capacity * 2)))
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Handles one header line (status line, field, continuation or the blank line ending the block); false
    /// aborts the transfer because the announced body is larger than the cap.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var line = Self.decode(bytes)
        while line.hasSuffix("\n") || line.hasSuffix("\r") || line.hasSuffix("\r\n") { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headers = []
            body = []
            streaming = false
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            return true
        }
        if line.isEmpty {
            let redirect = [301, 302, 303, 307, 308].contains(status) && headers.value(for: "Location") != nil
            if status >= 200, let sink, !redirect {
                streaming = true
                guard sink.receiveHead(HTTPResponseHead(url: url, status: status, headers: headers)) else {
                    stoppedBySink = true
                    return false
                }
                return true
            }
            guard expectsBody, status >= 200, status != 204, status != 304 else { return true }
            if let length = headers.value(for: "Content-Length").flatMap({ Int($0.trimmingASCIIWhitespace()) }) {
                if length > limit {
                    bodyTooLarge = true
                    return false
                }
                if length > 0 { body.reserveCapacity(length) }
            }
            return true
        }
        if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
            headers[headers.count - 1].value += " " + line.trimmingASCIIWhitespace()
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        headers.append(HTTPHeader(String(line[..<colon]), line[line.index(after: colon)...].trimmingASCIIWhitespace()))
        return true
    }

    /// Header bytes as UTF-8, or as ISO-8859-1 when they are not valid UTF-8.
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

private func transferFrom(_ userdata: UnsafeMutableRawPointer?) -> Transfer {
    Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
}

/// libcurl's body callback: hands the bytes to the `Transfer` whose pointer is the user data.
let curlWrite: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    guard length > 0 else { return 0 }
    let accepted = transferFrom(userdata).receive(UnsafeRawBufferPointer(start: data, count: length))
    return accepted ? length : 0
}

/// libcurl's header callback, one line at a time.
let curlHeader: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    let accepted = transferFrom(userdata).receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return accepted ? length : 0
}

/// libcurl's progress callback: a non-zero answer aborts a cancelled transfer.
let curlProgress: curl_xferinfo_callback = { userdata, _, _, _, _ in
    transferFrom(userdata).cancel.isCancelled ? 1 : 0
}

/// libcurl's call once a connection is made (or reused) and before the request goes out: aborts a transfer
/// whose connection reached one of this machine's reserved ports (`ReservedLocalPorts`).
let curlPrerequest: curl_prereq_callback = { userdata, remoteAddress, localAddress, remotePort, _ in
    guard let userdata else { return bookrule_curl_prereq_ok() }
    let transfer = transferFrom(userdata)
    guard let reserved = transfer.reservedPorts, let remoteAddress, let localAddress else { return bookrule_curl_prereq_ok() }
    let remote = String(cString: remoteAddress)
    guard reserved.refuses(remoteAddress: remote, localAddress: String(cString: localAddress), port: Int(remotePort)) else {
        return bookrule_curl_prereq_ok()
    }
    transfer.refusedDestination = remote.contains(":") ? "[\(remote)]:\(remotePort)" : "\(remote):\(remotePort)"
    return bookrule_curl_prereq_abort()
}
