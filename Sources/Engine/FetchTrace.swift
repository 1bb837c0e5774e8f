/// One page fetched during a step.
public struct FetchTrace: Sendable, Equatable, Codable {
    /// The URL requested.
    public var url: String
    /// The URL that answered (after redirects).
    public var finalURL: String
    /// The HTTP method.
    public var method: String
    /// The HTTP status, or nil when no response came.
    public var status: Int?
    /// How the body was decoded, e.g. `GB18030 (<meta> tag: gbk)`.
    public var decoding: String?
    /// Body size in bytes.
    public var bytes: Int
    /// Time from request to parsed document, in milliseconds.
    public var milliseconds: Double
    /// Why it failed, when it did.
    public var error: String?
}
