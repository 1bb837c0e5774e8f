/// A response without its body: what a streaming transfer reports before the body and at the end.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The URL that answered, after following redirects.
    public var url: String
    /// The HTTP status code.
    public var status: Int
    /// Response header fields in order.
    public var headers: [HTTPHeader]

    /// Creates a response head.
    public init(url: String, status: Int, headers: [HTTPHeader] = []) {
        self.url = url
        self.status = status
        self.headers = headers
    }
}
