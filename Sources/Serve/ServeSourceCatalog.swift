import BookRuleEngine

/// Where the WebSocket endpoints get their sources: the enabled ones (what `searchBook` searches) and one by
/// its `bookSourceUrl` (what `bookSourceDebug` runs). `bookrule serve` answers from the library's sources;
/// tests and apps can give a fixed list.
public struct ServeSourceCatalog: Sendable {
    /// Every enabled source, in the order searched.
    public var enabledSources: @Sendable () async throws -> [BookSource]
    /// The source whose `bookSourceUrl` is the argument, enabled or not; nil when there is none.
    public var source: @Sendable (_ url: String) async throws -> BookSource?
    /// The RSS source whose `sourceUrl` is the argument (what `rssSourceDebug` runs); nil when there is none.
    public var rssSource: @Sendable (_ url: String) async throws -> RssSource?

    /// A catalog answering through the closures (no RSS source unless `rssSource` finds one).
    public init(enabledSources: @escaping @Sendable () async throws -> [BookSource],
                source: @escaping @Sendable (_ url: String) async throws -> BookSource?,
                rssSource: @escaping @Sendable (_ url: String) async throws -> RssSource? = { _ in nil }) {
        self.enabledSources = enabledSources
        self.source = source
        self.rssSource = rssSource
    }

    /// Whether Legado would search `source`: its `enabled` is not false.
    public static func isEnabled(_ source: BookSource) -> Bool {
        source.json["enabled"]?.value != .bool(false)
    }

    /// A catalog of `sources`, all enabled, and of `rssSources`.
    public static func fixed(_ sources: [BookSource], rssSources: [RssSource] = []) -> ServeSourceCatalog {
        ServeSourceCatalog(enabledSources: { sources }, source: { url in sources.first { $0.url == url } },
                           rssSource: { url in rssSources.first { $0.url == url } })
    }
}
