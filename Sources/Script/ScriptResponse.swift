import BookRuleDocument

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
    /// The `name=value` of each `Set-Cookie` field, read by the one `Set-Cookie` reader the cookie store uses
    /// (a later field of the same name wins); what `cookies()` and `cookie(name)` answer.
    public var cookies: [String: String]
    /// The body as it came, for helpers that read bytes (`java.queryTTF(url)`); nil when the host has none.
    public var bodyBytes: [UInt8]?

    /// Creates a response.
    public init(url: String, statusCode: Int = 200, headers: [String: String] = [:], body: String,
                cookies: [String: String] = [:]) {
        self.url = url
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.cookies = cookies
    }

    /// A response from its header fields in the order received: a repeated field's values joined with ", " in
    /// `headers`, and each `Set-Cookie` field read into `cookies` by `SetCookieField`, as the cookie store reads it.
    public init(url: String, statusCode: Int = 200, fields: [(name: String, value: String)], body: String) {
        var headers: [String: String] = [:]
        var cookies: [String: String] = [:]
        for (name, value) in fields {
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
            if name.lowercased() == "set-cookie", let field = SetCookieField(value) { cookies[field.name] = field.value }
        }
        self.init(url: url, statusCode: statusCode, headers: headers, body: body, cookies: cookies)
    }
}
