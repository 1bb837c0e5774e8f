import BookRuleHTTPServer
import BookRuleLibrary
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// `bookrule serve`: Legado's web API over the library (docs/serve.md), on `listenAddress:port`. Start it,
/// print `url`, keep the process alive; `stop()` ends it after the requests and site fetches in flight.
public final class ReadingServer: Sendable {
    /// The address to open: the web client (with `--web`) or the API root, with `?token=` when there is one.
    public let url: String
    /// The port the HTTP server listens on.
    public let port: Int
    /// The access token, nil when none is needed (loopback without `--token`).
    public let token: String?
    /// Sources files that could not be read (the others were imported).
    public let warnings: [String]
    /// The routes.
    package let api: ReadingAPI
    private let server: HTTPServer
    private let companion: (any ServeCompanion)?
    private let schedule: ScheduledUpdate?

    /// Opens the library, imports the sources, and starts listening. `startCompanion`, when given, is started with
    /// the gate and the library once the HTTP port is known, and stopped first.
    public init(configuration: ServeConfiguration,
                startingCompanion startCompanion: (@Sendable (ServeContext) throws -> any ServeCompanion)? = nil) throws(ServeError) {
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
        let library = ReadingLibrary(store: store, transport: configuration.transport, siteSeconds: configuration.siteSeconds,
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
        let api = ReadingAPI(library: library, gate: gate, web: web)
        // The WebSocket server (`LegadoSockets`) listens on PORT+1. With port 0 the HTTP port is any free one,
        // whose next port may be taken: then both start again on another pair (a few tries).
        var attempt = 0
        while true {
            attempt += 1
            let http: HTTPServer
            do {
                http = try HTTPServer(address: address, port: configuration.port, bodyLimit: ServeDefaults.bodyLimit,
                                      connectionLimit: 512, requestSeconds: 30,
                                      admits: { (try? gate.check($0)) != nil }, quick: { request in api.handleQuickly(request) }) { request in
                    api.handle(request)
                }
            } catch {
                throw .server(error)
            }
            let (webSocketPort, overflow) = http.port.addingReportingOverflow(1)
            gate.listening(on: overflow ? [http.port] : [http.port, webSocketPort])
            do {
                companion = try startCompanion.map {
                    try $0(ServeContext(gate: gate, library: library, listenAddress: address, port: webSocketPort))
                }
                server = http
                // A source's script reaches the network only through this transport: not this server's own API.
                configuration.transport.reservedPorts?.reserve([Int(http.port), Int(http.port) + 1])
                break
            } catch {
                http.stop()
                if configuration.port == 0 && attempt < 8 { continue }
                throw .companion("\(error)")
            }
        }
        self.api = api
        port = Int(server.port)
        let root = "http://\(RequestGate.urlHost(address)):\(server.port)/" + (web == nil ? "" : "vue/index.html")
        url = root + (token.map { "?token=\($0)" } ?? "")
        schedule = configuration.updateInterval.map {
            ScheduledUpdate(library: library, interval: $0, report: configuration.updateReport)
        }
    }

    /// The gate, for a server beside this one (the WebSocket server): `gate.allows(host:origin:cookie:)`.
    package var gate: RequestGate { api.gate }

    /// The library served.
    public var store: LibraryStore { api.library.store }

    /// Stops serving: the companion first; then new requests are answered 503, the site work running is
    /// cancelled (a chapter being saved is saved), a scheduled update is cancelled (its chapter in flight
    /// abandoned, never half-saved), the requests being answered get their answers, all within `seconds`, and
    /// the server stops listening.
    public func stop(waitingUpTo seconds: Double = 30) {
        companion?.stop()
        api.beginStopping()
        api.library.beginStopping()
        let deadline = DispatchTime.now() + seconds
        if let schedule {
            let ended = DispatchSemaphore(value: 0)
            Task {
                await schedule.stop()
                ended.signal()
            }
            _ = ended.wait(timeout: deadline)
        }
        while (api.answering > 0 || api.library.fetchesRunning > 0) && DispatchTime.now() < deadline {
            usleep(10_000)
        }
        server.stop()
    }
}
