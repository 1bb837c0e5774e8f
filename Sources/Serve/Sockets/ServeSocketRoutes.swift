import BookRuleHTTPServer
import BookRuleEngine
import BookRuleLibrary

/// The WebSocket routes of Legado's web service, for `WebSocketEndpoints`.
package enum ServeSocketRoutes {
    /// `/searchBook`, `/bookSourceDebug` and `/rssSourceDebug` over `sources`, every request through `stack`.
    package static func legado(sources: ServeSourceCatalog, stack: TransportStack,
                              search: MultiSourceSearch.Options = .init(),
                              engineOptions: EngineOptions = EngineOptions()) -> [String: WebSocketEndpoints.Handler] {
        let searchBook = SearchBookSocket(sources: sources, stack: stack, options: search, engineOptions: engineOptions)
        let debug = SourceDebugSocket(sources: sources, stack: stack, engineOptions: engineOptions)
        let rssDebug = RssSourceDebugSocket(sources: sources, stack: stack, engineOptions: engineOptions)
        return [
            "/searchBook": { await searchBook.serve($0) },
            "/bookSourceDebug": { await debug.serve($0) },
            "/rssSourceDebug": { await rssDebug.serve($0) },
        ]
    }
}
