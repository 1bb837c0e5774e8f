/// The seam between the engine and the network: a request in, a response out.
///
/// The engine never talks to sockets itself, so tests run it on in-memory sites, `bookrule test` replays HAR
/// recordings, and the polite fetcher wraps a real transport. A transport follows redirects itself and reports
/// the final URL. Non-2xx statuses are returned, not thrown; errors are for when no response exists.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns the final response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Performs `request` and hands the final response to `sink` as it arrives: the head, then the body in
    /// pieces. Throws when no complete response arrived (a connection dropped mid-body throws after the sink
    /// got part of it); returns normally when the body ended or the sink stopped the transfer.
    ///
    /// The default implementation calls `send` and hands the body over in one piece (fine for recordings and
    /// in-memory transports); `CurlTransport` and `PoliteFetcher` stream for real, with no body size cap.
    func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult
}

extension HTTPTransport {
    /// Sends `request` with `send` and passes the whole response to `sink` (head, then the body in one piece).
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        let response = try await send(request)
        let head = HTTPResponseHead(url: response.url, status: response.status, headers: response.headers)
        guard sink.receiveHead(head) else { return HTTPStreamResult(head: head, bodyBytes: 0, stoppedBySink: true) }
        guard !response.body.isEmpty else { return HTTPStreamResult(head: head, bodyBytes: 0, stoppedBySink: false) }
        let accepted = response.body.withUnsafeBytes { sink.receiveBody($0) }
        return HTTPStreamResult(head: head, bodyBytes: accepted ? response.body.count : 0, stoppedBySink: !accepted)
    }
}
