import BookRuleEngine
import BookRuleHTTP

/// What a command or an app fetches through, built in one place: live answers through the shared polite
/// fetcher over libcurl (paced with other bookrule runs through the shared host state), or answers from disk
/// (saved pages first, then a HAR replay), optionally recorded; and who hears of each request and wait.
///
/// Build one stack per run and give each source `transport(for:)`: every source then shares the one fetcher,
/// so two sources on one host still take turns.
public struct TransportStack: Sendable {
    /// Who hears what the stack does; every one is optional.
    public struct Observers: Sendable {
        /// Every request the polite fetcher sends (live only).
        public var requests: (@Sendable (FetchEvent) -> Void)?
        /// Every wait of the polite fetcher before a request, as it starts and ends (live only).
        public var waits: (@Sendable (FetchWait) -> Void)?
        /// Every answer taken from disk: a saved page or a replayed HAR entry (offline only).
        public var answers: (@Sendable (ObservingTransport.Exchange) -> Void)?
        /// Problems that do not stop the run, in words: the shared host state cannot be used (pacing goes on
        /// in this process only).
        public var warnings: (@Sendable (String) -> Void)?

        /// Creates observers; see the properties.
        public init(
            requests: (@Sendable (FetchEvent) -> Void)? = nil, waits: (@Sendable (FetchWait) -> Void)? = nil,
            answers: (@Sendable (ObservingTransport.Exchange) -> Void)? = nil,
            warnings: (@Sendable (String) -> Void)? = nil
        ) {
            self.requests = requests
            self.waits = waits
            self.answers = answers
            self.warnings = warnings
        }
    }

    /// What every request goes through (before a source's own cookie jar and login; see `transport(for:)`).
    public let transport: any HTTPTransport
    /// Where the sources' logins are kept (`withLogins`); nil when sources run without their logins.
    public let logins: (any LoginStore)?
    /// The live polite fetcher; nil when the answers come from disk.
    public let fetcher: PoliteFetcher?
    /// The recording of live exchanges, when asked for (`recording(appendingTo:)`); the caller writes it.
    public let recorder: RecordingTransport?
    /// Ports of this machine no live request may reach: a server in this process reserves its own (`bookrule
    /// serve`), so a source's script cannot call it. Nil for answers from disk.
    public let reservedPorts: ReservedLocalPorts?
    /// Whether live requests may go through a proxy (`CurlTransport.Configuration.mayUseProxy`): then
    /// `reservedPorts` cannot tell a request for this machine, and a server here must ask for a token.
    public let mayUseProxy: Bool

    private init(transport: any HTTPTransport, fetcher: PoliteFetcher?, recorder: RecordingTransport?,
                 reservedPorts: ReservedLocalPorts?, mayUseProxy: Bool = false, logins: (any LoginStore)? = nil) {
        self.transport = transport
        self.logins = logins
        self.fetcher = fetcher
        self.recorder = recorder
        self.reservedPorts = reservedPorts
        self.mayUseProxy = mayUseProxy
    }

    /// Live answers through `politeFetcher(policy:curl:hostStatePath:observers:)`.
    public static func live(
        policy: PolitenessPolicy = .default, curl: CurlTransport.Configuration = CurlTransport.Configuration(),
        hostStatePath: String? = HostTurnStore.defaultPath(), observers: Observers = Observers()
    ) -> TransportStack {
        let reserved = ReservedLocalPorts()
        let fetcher = politeFetcher(policy: policy, curl: curl, hostStatePath: hostStatePath, observers: observers,
                                    reservedPorts: reserved)
        return TransportStack(transport: fetcher, fetcher: fetcher, recorder: nil, reservedPorts: reserved,
                              mayUseProxy: curl.mayUseProxy())
    }

    /// The polite fetcher with `policy` over libcurl with `curl`, sharing each host's turn with other
    /// processes through the host state at `hostStatePath` (nil: in this process only). A host state that
    /// cannot be opened or stops working is reported through `observers.warnings`; pacing goes on in memory.
    /// No request reaches the ports of this machine `reservedPorts` holds.
    public static func politeFetcher(
        policy: PolitenessPolicy = .default, curl: CurlTransport.Configuration = CurlTransport.Configuration(),
        hostStatePath: String? = HostTurnStore.defaultPath(), observers: Observers = Observers(),
        reservedPorts: ReservedLocalPorts? = nil
    ) -> PoliteFetcher {
        var ledger: HostTurnStore?
        if let hostStatePath {
            do {
                // A turn outlives a request by a margin: the lease only ends the turn of a run that hung.
                ledger = try HostTurnStore(path: hostStatePath, lease: curl.totalTimeout + .seconds(30))
            } catch {
                observers.warnings?("\(error)")
            }
        }
        let warnings = observers.warnings
        return PoliteFetcher(
            transport: CurlTransport(configuration: curl, reservedPorts: reservedPorts), policy: policy, ledger: ledger,
            ledgerFailed: { error in warnings?("\(error)") }, events: observers.requests, waits: observers.waits)
    }

    /// Answers from disk: `pages` first, then the HAR recording at `harPath`; a request neither answers fails
    /// as not saved. Nothing goes to the network. Throws when the HAR cannot be read.
    public static func offline(
        pages: [SavedPage], harPath: String? = nil, observers: Observers = Observers()
    ) throws -> TransportStack {
        var replay: (any HTTPTransport)?
        if let harPath {
            let recording = try HARReplayTransport(contentsOf: harPath)
            replay = observers.answers.map { ObservingTransport(recording, origin: "replayed", observe: $0) } ?? recording
        }
        let transport: any HTTPTransport
        if pages.isEmpty, let replay {
            transport = replay
        } else {
            transport = SavedPageTransport(pages: pages, fallback: replay, observe: observers.answers)
        }
        return TransportStack(transport: transport, fetcher: nil, recorder: nil, reservedPorts: nil)
    }

    /// This stack with every exchange recorded as a HAR entry, after the entries of `recording` (a login's
    /// credentials and headers redacted).
    public func recording(appendingTo recording: HARRecording = HARRecording()) -> TransportStack {
        let recorder = RecordingTransport(upstream: transport, appendingTo: recording)
        return TransportStack(transport: recorder, fetcher: fetcher, recorder: recorder, reservedPorts: reservedPorts,
                              mayUseProxy: mayUseProxy, logins: logins)
    }

    /// This stack with the logins of `store`: every source's transport (`transport(for:)`) sends its source's
    /// stored login headers and cookies, and carries the login as `SourceTransport.login`.
    public func withLogins(_ store: any LoginStore) -> TransportStack {
        TransportStack(transport: transport, fetcher: fetcher, recorder: recorder, reservedPorts: reservedPorts,
                       mayUseProxy: mayUseProxy, logins: store)
    }

    /// A stack over `transport` as it is (an app's own transport, an in-memory site in a test), paced by
    /// `fetcher` when it is the polite fetcher underneath: what `transport(for:)` adds (a source's jar, its
    /// login from `withLogins`) goes on top of it.
    public static func over(_ transport: any HTTPTransport, fetcher: PoliteFetcher? = nil) -> TransportStack {
        TransportStack(transport: transport, fetcher: fetcher, recorder: nil, reservedPorts: nil)
    }

    /// What `source`'s engine sends through (`SourceEngine.init(source:connection:)`): the stack, with the
    /// source's cookie jar and stored login (from `logins`), and its `concurrentRate` set on the live fetcher.
    public func transport(for source: BookSource) -> SourceTransport {
        SourceTransport(for: source, over: transport, pacing: fetcher, logins: logins)
    }

    /// An engine for `source` through `transport(for:)`, with its cookie jar and login.
    public func engine(for source: BookSource, options: EngineOptions = EngineOptions()) -> SourceEngine {
        SourceEngine(source: source, connection: transport(for: source), options: options)
    }
}
