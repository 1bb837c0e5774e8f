/// A request the engine wants made: built from a source's URL templates, sent through an `HTTPTransport`.
public struct HTTPRequest: Sendable, Hashable {
    /// Absolute http(s) URL. May contain characters a transport must percent-encode (spaces, CJK).
    public var url: String
    /// `GET` or `POST` (upper case).
    public var method: String
    /// Header fields to send, in order; the source's `header` and the URL options' `headers`.
    public var headers: [HTTPHeader]
    /// The request body (already encoded in the charset the site expects), for POST.
    public var body: [UInt8]?

    /// Creates a request.
    public init(url: String, method: String = "GET", headers: [HTTPHeader] = [], body: [UInt8]? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
    }
}
