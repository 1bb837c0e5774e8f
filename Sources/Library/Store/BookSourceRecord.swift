/// The source a book was found with, as the library keeps it.
public struct BookSourceRecord: Sendable, Equatable, Codable {
    /// The source's `bookSourceUrl`, its identity.
    public var sourceURL: String
    /// The source's `bookSourceName`.
    public var sourceName: String
    /// The source's JSON text, so the library can fetch new chapters later without the original file.
    public var json: String

    /// Creates a record.
    public init(sourceURL: String, sourceName: String, json: String) {
        self.sourceURL = sourceURL
        self.sourceName = sourceName
        self.json = json
    }
}
