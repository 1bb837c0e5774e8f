import BookRuleEngine
import BookRuleHTTPServer
import BookRuleLibrary
import BookRuleLocking
import Dispatch

/// `bookrule serve`: Legado's web API over the library (docs/serve.md), on `listenAddress:port`. Start it,
/// print `url`, keep the process alive; `stop()` ends it after the requests and site fetches in flight.
public final class ReadingServer: Sendable {
    /// The address to open: the web client (with `--web`) or the API root, with `?token=` when there is one.
    public let url: String
    /// The port the HTTP server listens on.
    public let port: Int
    /// The OPDS catalog's address, for e-readers (with a token, they send it as the password of user `bookrule`).
    public let catalogURL: String
    /// The access token, nil when none is needed (loopback without `--token`).
    public let token: String?
    /// Sources files that could not be read (the others were imported).
    public let warnings: [String]
    /// The routes.
    package let api: LegadoAPI
    /// The servers on PORT and PORT+1: the same API and WebSocket endpoints on both (Legado's web client
    /// looks for its WebSockets on PORT+1).
    private let servers: [HTTPServer]
    private let schedule: ScheduledUpdate?
    private let webDAVSync: WebDAVProgressSync?

    /// Opens the library, imports the sources, and starts listening on PORT and PORT+1.
    public init(configuration: ServeConfiguration) throws(ServeError) {
        let address = configuration.listenAddress.hasPrefix("[") && configuration.listenAddress.hasSuffix("]")
            ? String(configuration.listenAddress.dropFirst().dropLast()) : configuration.listenAddress
        guard RequestGate.isIPAddress(address) else { throw .badListenAddress(configuration.listenAddress) }
        var web: WebFiles?
        if let directory = configuration.webDirectory {
            guard let files = WebFiles(directory: directory) else { throw .noWebDirectory(path: directory) }
            web = files
        }
        let store: LibraryStore
        do {
            store = try LibraryStore(path: configuration.libraryPath)
        } catch {
            throw .library(error)
        }
        let library = ServeLibrary(store: store, transport: configuration.transport, siteSeconds: configuration.siteSeconds,
                                     prefetchCount: configuration.prefetchChapters)
        let collection = SourceCollection(paths: configuration.sourcePaths)
        if !configuration.sourcePaths.isEmpty && collection.sources.isEmpty && collection.rssSources.isEmpty
            && !collection.problems.isEmpty {
            throw .unreadableSources(problems: collection.problems)
        }
        do {
            try library.importSources(collection)
        } catch {
            throw .library(error)
        }
        warnings = collection.problems
        var token = configuration.token
        // Off loopback, or reachable by another name (a reverse proxy's `--host`), strangers can reach it: a token.
        // So can a source's script when sites are reached through a proxy, which may carry a request for this
        // machine back here where `ReservedLocalPorts` sees only the proxy's address.
        let reachable = !RequestGate.isLoopback(address) || configuration.hostNames.contains { $0.lowercased() != "localhost" }
            || configuration.transport.mayUseProxy
        if token == nil && reachable {
            do {
                token = try AccessToken.make()
            } catch {
                throw .server(error)
            }
        }
        self.token = token
        let gate = RequestGate(address: address, token: token, cookieName: ServeDefaults.cookieName,
                               extraNames: configuration.hostNames,
                               tokenHint: "no valid token: open the URL bookrule serve printed (it ends in ?token=…)")
        let api = LegadoAPI(library: library, gate: gate, web: web)
        let engineOptions = EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: store.path))
        let catalog = ServeSourceCatalog(
            enabledSources: { try library.sources().filter(ServeSourceCatalog.isEnabled) },
            source: { url in try library.sources().first { $0.url == url } },
            rssSource: { url in try library.rssSource(url: url) })
        // `--no-font-decoding` (a task-local of the command) does not reach the server's own threads, which
        // answer requests and start the sockets' tasks: each binds the value serve was started with.
        let fonts = WebFontReading.current
        let routes = ServeSocketRoutes.legado(sources: catalog, stack: library.transport, engineOptions: engineOptions)
        let webSockets = WebSocketEndpoints(
            routes: routes.mapValues { route in { session in await WebFontReading.$current.withValue(fonts) { await route(session) } } },
            admits: { (try? gate.check($0)) != nil })
        // One server, on two ports: Legado's web client opens its WebSockets on PORT+1. With port 0 the first
        // port is any free one, whose next port may be taken: then both start again on another pair (a few tries).
        let connectionLimit = ServeDefaults.connectionLimit(openFiles: OpenFileLimit.raise())
        func listen(_ port: UInt16) throws(HTTPServerError) -> HTTPServer {
            try HTTPServer(address: address, port: port, bodyLimit: ServeDefaults.bodyLimit, connectionLimit: connectionLimit,
                           requestSeconds: 30, webSockets: webSockets,
                           admits: { (try? gate.check($0)) != nil }, quick: { request in api.handleQuickly(request) }) { request in
                WebFontReading.$current.withValue(fonts) { api.handle(request) }
            }
        }
        var attempt = 0
        while true {
            attempt += 1
            let http: HTTPServer
            do {
                http = try listen(configuration.port)
            } catch {
                throw .server(error)
            }
            let (nextPort, overflow) = http.port.addingReportingOverflow(1)
            do {
                guard !overflow else { throw HTTPServerError.cannotListen(address: address, port: 65536) }
                let second = try listen(nextPort)
                gate.listening(on: [http.port, second.port])
                servers = [http, second]
                // A source's script reaches the network only through this transport: not this server's own API.
                configuration.transport.reservedPorts?.reserve([Int(http.port), Int(second.port)])
                break
            } catch {
                http.stop()
                if configuration.port == 0 && attempt < 8 { continue }
                throw .secondPort("\(error)")
            }
        }
        self.api = api
        port = Int(servers[0].port)
        let root = "http://\(RequestGate.urlHost(address)):\(port)/" + (web == nil ? "" : "vue/index.html")
        url = root + (token.map { "?token=\($0)" } ?? "")
        catalogURL = "http://\(RequestGate.urlHost(address)):\(port)/opds"
        let webDAVSync = configuration.webDAV.map {
            WebDAVProgressSync(bridge: $0, store: store, interval: configuration.webDAVInterval, report: configuration.updateReport)
        }
        if let webDAVSync { library.progressSaved.withLock { $0 = { webDAVSync.progressSaved(bookID: $0) } } }
        self.webDAVSync = webDAVSync
        schedule = configuration.updateInterval.map {
            ScheduledUpdate(library: library, interval: $0, report: configuration.updateReport)
        }
    }

    /// The gate, for a server beside this one (the WebSocket server): `gate.allows(host:origin:cookie:)`.
    package var gate: RequestGate { api.gate }

    /// The library served.
    public var store: LibraryStore { api.library.store }

    /// `stop(waitingUpTo:)` for async code: that call blocks until the requests being answered and the site work
    /// end, and they need Swift's cooperative pool, so blocking one of its threads (one per core) would slow
    /// them or hold them until the deadline. It runs on a thread of its own and is awaited.
    /// When no thread can be started it stops on the caller's.
    public func stop(waitingUpTo seconds: Double = 30) async {
        let stop = { @Sendable in self.stop(waitingUpTo: seconds) }
        if await BlockingWorkThread.run(stop) == nil { stop() }
    }

    /// Stops serving: WebSocket sessions are closed (1001) and their searches cancelled; then new requests are answered 503, the site work running is
    /// cancelled (a chapter being saved is saved), a scheduled update is cancelled (its chapter in flight
    /// abandoned, never half-saved), the requests being answered get their answers, all within `seconds`, and
    /// the server stops listening.
    public func stop(waitingUpTo seconds: Double = 30) {
        api.beginStopping()
        api.library.beginStopping()
        let deadline = DispatchTime.now() + seconds
        if let webDAVSync {
            let ended = DispatchSemaphore(value: 0)
            Task {
                await webDAVSync.stop()
                ended.signal()
            }
            _ = ended.wait(timeout: deadline)
        }
        if let schedule {
            let ended = DispatchSemaphore(value: 0)
            Task {
                await schedule.stop()
                ended.signal()
            }
            _ = ended.wait(timeout: deadline)
        }
        // Woken when the last request or site fetch ends, not by looking again and again.
        if api.answering.waitUntilIdle(deadline: deadline) { _ = api.library.siteWork.waitUntilIdle(deadline: deadline) }
        // Each server ends its WebSocket sessions (at most their close time) before it stops.
        servers.forEach { $0.stop() }
    }
}
