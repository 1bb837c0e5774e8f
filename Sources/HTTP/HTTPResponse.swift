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
    /// The charset a saved page's index (`pages.json`, its `contentType`) says the file is in, which wins over
    /// the source's charset option when the body is decoded: the author knows how the file on disk is encoded
    /// (a browser re-saves a GBK site's page as UTF-8). Nil for answers from the network or a HAR.
    public var savedCharset: String?

    /// Creates a response.
    public init(url: String, status: Int, headers: [HTTPHeader] = [], body: [UInt8] = [], savedCharset: String? = nil) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.savedCharset = savedCharset
    }

    /// The Content-Type header, if any.
    public var contentType: String? { headers.value(for: "Content-Type") }
}
