/// The results of one search request.
public struct SearchPage: Sendable, Equatable, Codable {
    /// The URL that was fetched (after redirects).
    public var url: String
    /// Books found, in page order.
    public var results: [SearchResult]
    /// Rules that failed for some items, and other things worth telling the source's author.
    public var warnings: [String]
}
