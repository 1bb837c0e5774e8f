/// Limits for one engine.
public struct EngineOptions: Sendable {
    /// At most this many TOC pages, and this many pages for one chapter, are followed (a warning says so).
    public var pageCap: Int

    /// The defaults: 500 pages.
    public init(pageCap: Int = 500) {
        self.pageCap = pageCap
    }
}
