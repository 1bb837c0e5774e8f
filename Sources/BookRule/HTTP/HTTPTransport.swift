/// The seam between the engine and the network: a request in, a response out.
///
/// The engine never talks to sockets itself, so tests run it on in-memory sites, `bookrule test` replays HAR
/// recordings, and the polite fetcher wraps a real transport. A transport follows redirects itself and reports
/// the final URL. Non-2xx statuses are returned, not thrown; errors are for when no response exists.
public protocol HTTPTransport: Sendable {
    /// Performs `request` and returns the final response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
