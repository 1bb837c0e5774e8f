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
    /// The cookie store a transport reads and fills on every hop of a redirect chain (a source's
    /// `CookieJar` sets it); nil gives the chain a store of its own, forgotten afterwards.
    public var cookies: CookieStore?
    /// Values that must not be written anywhere in clear (a login's credentials and headers): a recording
    /// replaces them, in every exchange it holds, with `REDACTED`. Not sent.
    public var secrets: SecretSet?

    /// Creates a request.
    public init(
        url: String, method: String = "GET", headers: [HTTPHeader] = [], body: [UInt8]? = nil,
        cookies: CookieStore? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.cookies = cookies
    }
}
