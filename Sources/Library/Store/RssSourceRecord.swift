/// An RSS source (Legado's 订阅源) as the library keeps it: its JSON exactly as saved.
public struct RssSourceRecord: Sendable, Equatable, Codable {
    /// The source's `sourceUrl`, its identity.
    public var sourceURL: String
    /// The source's `sourceName`.
    public var sourceName: String
    /// The source's JSON text.
    public var json: String

    /// Creates a record.
    public init(sourceURL: String, sourceName: String, json: String) {
        self.sourceURL = sourceURL
        self.sourceName = sourceName
        self.json = json
    }
}
