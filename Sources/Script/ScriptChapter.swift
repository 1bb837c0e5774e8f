/// The chapter a script works on, as Legado's `chapter` object shows it.
public struct ScriptChapter: Sendable, Equatable {
    /// `chapter.title`.
    public var title: String
    /// `chapter.url`.
    public var url: String
    /// `chapter.index`: 0-based position in the TOC.
    public var index: Int
    /// `chapter.baseUrl`: the TOC page the chapter was read from.
    public var baseURL: String
    /// `chapter.isVip`.
    public var isVIP: Bool
    /// `chapter.isVolume`.
    public var isVolume: Bool

    /// Creates a chapter.
    public init(title: String, url: String, index: Int = 0, baseURL: String = "", isVIP: Bool = false,
                isVolume: Bool = false) {
        self.title = title
        self.url = url
        self.index = index
        self.baseURL = baseURL
        self.isVIP = isVIP
        self.isVolume = isVolume
    }
}
