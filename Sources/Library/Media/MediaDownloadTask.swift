import BookRuleHTTP

/// One file to download: where from, where to, and what it must look like when done.
public struct MediaDownloadTask: Sendable, Hashable {
    /// Identifies the task in events and in `MediaDownloader` calls; unique within a downloader.
    public var id: String
    /// The http(s) URL of the file.
    public var url: String
    /// The final path; partial data goes to `destination + ".part"` and its sidecar to
    /// `destination + ".part.json"` until the file verifies.
    public var destination: String
    /// The SHA-256 the file must have (64 hex digits, any case), when known.
    public var expectedSHA256: String?
    /// The length in bytes the file must have, when known.
    public var expectedLength: Int64?
    /// Extra request header fields (a Referer some image hosts want, a source's `header`).
    public var headers: [HTTPHeader]
    /// The most bytes the file may have (a cover image, say); larger fails the task. Nil: no limit.
    public var maximumBytes: Int64?

    /// Creates a task.
    public init(
        id: String, url: String, destination: String, expectedSHA256: String? = nil, expectedLength: Int64? = nil,
        headers: [HTTPHeader] = [], maximumBytes: Int64? = nil
    ) {
        self.id = id
        self.url = url
        self.destination = destination
        self.expectedSHA256 = expectedSHA256
        self.expectedLength = expectedLength
        self.headers = headers
        self.maximumBytes = maximumBytes
    }

    /// Whether `url` can be downloaded: an absolute http or https URL with a host.
    public static func isDownloadableURL(_ url: String) -> Bool {
        PoliteFetcher.hostKey(url) != nil
    }

    /// Where the partial data is kept.
    public var partPath: String { destination + ".part" }
    /// Where the partial data's sidecar is kept.
    public var sidecarPath: String { destination + ".part.json" }
}
