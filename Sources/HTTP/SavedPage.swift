/// A page saved from a site (a browser's "Save page as", `curl -o`), standing in for the response of the URL
/// it was saved from: links on it resolve against that URL, and its bytes are decoded as if they had just
/// arrived (the charset decision reads the page's `<meta>` or `contentType`).
public struct SavedPage: Sendable, Hashable {
    /// The URL the page is the response of; nil for a page that answers the first request of a run that no
    /// other page answers (a search, whose URL the source's template builds).
    public var url: String?
    /// The request method it answers (`GET`, or `POST` for a search result).
    public var method: String
    /// The request body it answers, for POST; nil answers any body.
    public var requestBody: [UInt8]?
    /// The saved bytes, exactly as on disk.
    public var body: [UInt8]
    /// The Content-Type to report (a charset here wins over the page's `<meta>`); nil reports none.
    public var contentType: String?
    /// The status to report (200 unless the page records an error page).
    public var status: Int
    /// Where the bytes came from (a file path, or "standard input"), for messages.
    public var file: String

    /// Creates a saved page.
    public init(url: String?, method: String = "GET", requestBody: [UInt8]? = nil, body: [UInt8],
                contentType: String? = nil, status: Int = 200, file: String) {
        self.url = url
        self.method = method.uppercased()
        self.requestBody = requestBody
        self.body = body
        self.contentType = contentType
        self.status = status
        self.file = file
    }
}
