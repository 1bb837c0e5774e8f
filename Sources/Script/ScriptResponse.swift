/// The answer to a `ScriptRequest`, as scripts read it (`body()`, `code()`, `header(name)`, `url()`).
public struct ScriptResponse: Sendable, Equatable {
    /// The final URL (after redirects, when the host followed them).
    public var url: String
    /// The HTTP status code.
    public var statusCode: Int
    /// The response headers (names as sent; a repeated header's values joined with ", ").
    public var headers: [String: String]
    /// The body, decoded to text with the page's charset.
    public var body: String

    /// Creates a response.
    public init(url: String, statusCode: Int = 200, headers: [String: String] = [:], body: String) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }
}
