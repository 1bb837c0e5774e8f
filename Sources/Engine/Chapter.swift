/// One entry of a table of contents.
public struct Chapter: Sendable, Equatable, Hashable, Codable {
    /// Position in the table of contents, from 0.
    public var index: Int
    /// Chapter title.
    public var title: String
    /// Absolute URL of the chapter's first page ("" for a volume heading without a link).
    public var url: String
    /// Whether this entry is a volume heading rather than a chapter.
    public var isVolume: Bool
    /// Whether the site marks the chapter as VIP.
    public var isVIP: Bool
    /// Whether the site marks the chapter as paid.
    public var isPay: Bool
    /// Update time as the site writes it.
    public var updateTime: String

    /// Creates a chapter entry.
    public init(index: Int, title: String, url: String, isVolume: Bool = false, isVIP: Bool = false,
                isPay: Bool = false, updateTime: String = "") {
        self.index = index
        self.title = title
        self.url = url
        self.isVolume = isVolume
        self.isVIP = isVIP
        self.isPay = isPay
        self.updateTime = updateTime
    }
}
