import BookRuleLibrary

/// How `bookrule serve` runs: which library, which sources to import, where it listens, the web client, the
/// token, and what every site request goes through.
public struct ServeConfiguration: Sendable {
    /// The library file.
    public var libraryPath: String
    /// Source files and folders (`*.json` in them) imported into the library's sources table at start.
    public var sourcePaths: [String]
    /// The HTTP port (0: any free one); the WebSocket server listens on the next.
    public var port: UInt16
    /// The address to listen on (IPv4 or IPv6 literal).
    public var listenAddress: String
    /// A built web client to serve at `/vue/`.
    public var webDirectory: String?
    /// The access token; nil: none on a loopback address, a generated one on any other.
    public var token: String?
    /// Names clients reach the server by besides its address (a reverse proxy's host name), for the Host and
    /// Origin checks.
    public var hostNames: [String]
    /// What every site request goes through.
    public var transport: TransportStack
    /// How long a request waits for a site step before it answers that the site did not answer.
    public var siteSeconds: Double
    /// How many chapters after the one a reader opens are fetched and saved in the background (0: none).
    public var prefetchChapters: Int
    /// How often every book is brought up to date (`--update-every`); nil: never.
    public var updateInterval: Duration?
    /// Hears a line after each scheduled update.
    public var updateReport: @Sendable (String) -> Void
    /// The Legado app's WebDAV folder whose `bookProgress/` the library's progress is kept in step with
    /// (`--webdav`, docs/webdav.md); nil: none.
    public var webDAV: LegadoWebDAV?
    /// How often every book's progress is synced with `webDAV` (`--webdav-every`, default 5 minutes).
    public var webDAVInterval: Duration = .seconds(300)

    /// A configuration; see the properties.
    public init(libraryPath: String, sourcePaths: [String] = [], port: UInt16 = ServeDefaults.httpPort,
                listenAddress: String = ServeDefaults.listenAddress, webDirectory: String? = nil, token: String? = nil,
                hostNames: [String] = [], transport: TransportStack, siteSeconds: Double = 60,
                prefetchChapters: Int = ServeDefaults.prefetchChapters, updateInterval: Duration? = nil,
                updateReport: @escaping @Sendable (String) -> Void = { _ in }) {
        self.libraryPath = libraryPath
        self.sourcePaths = sourcePaths
        self.port = port
        self.listenAddress = listenAddress
        self.webDirectory = webDirectory
        self.token = token
        self.hostNames = hostNames
        self.transport = transport
        self.siteSeconds = siteSeconds
        self.prefetchChapters = prefetchChapters
        self.updateInterval = updateInterval
        self.updateReport = updateReport
    }
}
