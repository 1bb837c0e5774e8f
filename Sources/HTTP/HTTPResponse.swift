/// What a transport got back: the final URL after redirects, the status, the headers and the raw body bytes.
public struct HTTPResponse: Sendable, Hashable {
    /// The URL that answered, after following redirects; links on the page resolve against it.
    public var url: String
    /// The HTTP status code.
    public var status: Int
    /// Response header fields in order.
    public var headers: [HTTPHeader]
    /// The body exactly as received (after content-encoding is undone), never decoded to text here.
    public var body: [UInt8]

    /// Creates a response.
    public init(url: String, status: Int, headers: [HTTPHeader] = [], body: [UInt8] = []) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The Content-Type header, if any.
    public var contentType: String? { headers.value(for: "Content-Type") }
}
