import BookRuleEngine
import BookRuleLibrary
import Dispatch

/// The WebSocket server `bookrule serve` starts beside its HTTP one, as Legado does: `searchBook`,
/// `bookSourceDebug` and `rssSourceDebug` on PORT+1, behind the same gate (Host on either port, Origin, the token's cookie), over the
/// library's sources and the one transport stack, so a search from many clients stays polite to every site.
public final class LegadoSockets: ServeCompanion {
    private let server: ServeSocketServer

    private init(server: ServeSocketServer) {
        self.server = server
    }

    /// Starts the server for `context` (what `ReadingServer` hands its companion); its engines keep the
    /// scripts' cache beside the library, as every other command's do.
    public static func start(_ context: ServeContext) throws -> any ServeCompanion {
        let library = context.library
        let engineOptions = EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: library.store.path))
        let gate = context.gate
        let catalog = ServeSourceCatalog(
            enabledSources: { try library.sources().filter(isEnabled) },
            source: { url in try library.sources().first { $0.url == url } },
            rssSource: { url in try library.rssSource(url: url) })
        let server = ServeSocketServer(
            listen: context.listenAddress, port: context.port,
            gate: { target, headers in gate.allows(path: target, headers: headers.map { (name: $0.key, value: $0.value) }) },
            routes: ServeSocketRoutes.legado(sources: catalog, stack: library.transport, engineOptions: engineOptions))
        try server.start()
        return LegadoSockets(server: server)
    }

    /// A source Legado would search: its `enabled` is not false.
    static func isEnabled(_ source: BookSource) -> Bool {
        source.json["enabled"]?.value != .bool(false)
    }

    /// Closes every session (1001) and waits, at most 10 s, until no handler runs.
    public func stop() {
        let done = DispatchSemaphore(value: 0)
        let server = server
        Task.detached {
            await server.stop()
            done.signal()
        }
        _ = done.wait(timeout: .now() + 10)
    }
}
