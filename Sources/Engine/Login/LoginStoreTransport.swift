import BookRuleHTTP

/// The stack's transport with a login store: requests pass through unchanged, and every source transport
/// built over it (`SourceTransport`) adds its source's stored login, so each command that fetches sends the
/// login without knowing about it.
public struct LoginStoreTransport: HTTPTransport {
    /// What requests go through.
    public let upstream: any HTTPTransport
    /// Where logins are kept.
    public let store: any LoginStore

    /// `upstream` carrying `store`.
    public init(_ upstream: any HTTPTransport, store: any LoginStore) {
        self.upstream = upstream
        self.store = store
    }

    /// Sends `request` unchanged.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await upstream.send(request)
    }

    /// Streams `request` unchanged.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        try await upstream.stream(request, to: sink)
    }
}
