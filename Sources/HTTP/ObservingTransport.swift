/// A transport that reports every exchange of another one as it completes: what `--verbose` shows for
/// replayed and saved answers, which no polite fetcher logs because no request goes out.
public struct ObservingTransport: HTTPTransport {
    /// One finished exchange.
    public struct Exchange: Sendable, CustomStringConvertible {
        /// Where the answer came from, e.g. "replayed" or "saved".
        public var origin: String
        /// The request method.
        public var method: String
        /// The URL asked for.
        public var url: String
        /// The status answered, or nil when there was no answer.
        public var status: Int?
        /// The size of the body answered.
        public var bytes: Int
        /// Why there was no answer.
        public var error: String?

        /// `replayed GET https://… -> 200, 5120 B`, or `-> failed (…)`.
        public var description: String {
            let result = status.map { "\($0), \(bytes) B" } ?? "failed (\(error ?? "no answer"))"
            return "\(origin) \(method) \(url) -> \(result)"
        }
    }

    /// The transport that answers.
    public let upstream: any HTTPTransport
    /// Names the answers' origin in each `Exchange`.
    public let origin: String
    private let observe: @Sendable (Exchange) -> Void

    /// Reports every exchange of `upstream` to `observe`, labelled `origin`.
    public init(_ upstream: any HTTPTransport, origin: String, observe: @escaping @Sendable (Exchange) -> Void) {
        self.upstream = upstream
        self.origin = origin
        self.observe = observe
    }

    /// Sends through `upstream` and reports the outcome.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            let response = try await upstream.send(request)
            observe(Exchange(origin: origin, method: request.method, url: request.url, status: response.status,
                             bytes: response.body.count, error: nil))
            return response
        } catch {
            observe(Exchange(origin: origin, method: request.method, url: request.url, status: nil, bytes: 0,
                             error: "\(error)"))
            throw error
        }
    }
}
