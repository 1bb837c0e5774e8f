import BookRule
import Foundation

/// The options every command that fetches takes, read into the library's `TransportStack` (libcurl
/// underneath, the shared `PoliteFetcher` on top; the README describes them).
struct FetchOptions {
    /// The options, as every fetching command's help lists them under "Fetching".
    static let options: [CommandOption] = [
        .value("--delay", "SECONDS", summary: "Gap after a successful request to the same host (default 0.5)"),
        .value("--failure-delay", "SECONDS", summary: "Gap after a failed request to the same host (default 5); after a "
               + "429/503 with Retry-After, the Retry-After decides instead"),
        .value("--max-retries", "N", summary: "Retries of a GET after 408/429/5xx/connection errors (default 4)"),
        .value("--retry-after-cap", "SECONDS", summary: "Longest Retry-After honoured; longer defers the host (default 300)"),
        .choice("--ua-rotation", ["session", "request", "off"],
                summary: "session (one browser UA per host), request, or off (default session)"),
        .value("--timeout", "SECONDS", summary: "Overall limit for one request, redirects included (default 60)"),
        .value("--connect-timeout", "SECONDS", summary: "Longest wait for a connection to a host (default 10; 5 over many "
               + "sources, where a host that cannot be reached is tried once and left out for the run)"),
        .value("--proxy", "URL", summary: "Proxy for every request (default: http_proxy/https_proxy/no_proxy)"),
        .flag("--verbose", summary: "Log every request on stderr: time, host, status, bytes, wait, retry reason"),
    ]

    var policy = PolitenessPolicy.default
    var curl = CurlTransport.Configuration()
    var verbose = false

    /// Reads the options from parsed arguments.
    init(_ arguments: CommandLineArguments) throws(UsageError) {
        if let value = arguments.value("--delay") { policy.delay = try Self.seconds(value, "--delay") }
        if let value = arguments.value("--failure-delay") { policy.failureDelay = try Self.seconds(value, "--failure-delay") }
        if let value = arguments.value("--retry-after-cap") { policy.retryAfterCap = try Self.seconds(value, "--retry-after-cap") }
        if let value = arguments.value("--max-retries") {
            guard let retries = Int(value), retries >= 0, retries < 100 else {
                throw UsageError("--max-retries takes a whole number from 0 to 99, not \"\(value)\"")
            }
            policy.maxAttempts = retries + 1
        }
        if let value = arguments.value("--ua-rotation") {
            guard let rotation = UserAgentPool.Rotation(rawValue: value) else {
                throw UsageError("--ua-rotation takes session, request or off, not \"\(value)\"")
            }
            policy.userAgentRotation = rotation
        }
        if let value = arguments.value("--timeout") {
            let timeout = try Self.seconds(value, "--timeout")
            guard timeout > .zero else { throw UsageError("--timeout must be above 0") }
            curl.totalTimeout = timeout
            curl.connectTimeout = min(curl.connectTimeout, timeout)
        }
        if let value = arguments.value("--connect-timeout") {
            let timeout = try Self.seconds(value, "--connect-timeout")
            guard timeout > .zero else { throw UsageError("--connect-timeout must be above 0") }
            curl.connectTimeout = min(timeout, curl.totalTimeout)
            connectTimeoutGiven = true
        }
        if let value = arguments.value("--proxy") { curl.proxy = value }
        verbose = arguments.has("--verbose")
    }

    /// Whether `--connect-timeout` was given.
    private var connectTimeoutGiven = false

    /// The default connect timeout of a run over many sources.
    static let manySourcesConnectTimeout = Duration.seconds(5)

    /// These options for a run over many sources (`search --sources`, `fetch --sources`, `sources --find`):
    /// a host that cannot be reached gets one attempt and is left out for the rest of the run
    /// (`PolitenessPolicy.givesUpOnUnreachableHosts`), and the connect timeout is 5 s unless
    /// `--connect-timeout` says otherwise, so a dead source never holds back the others.
    func overManySources() -> FetchOptions {
        var options = self
        options.policy.givesUpOnUnreachableHosts = true
        if !connectTimeoutGiven { options.curl.connectTimeout = min(options.curl.connectTimeout, Self.manySourcesConnectTimeout) }
        return options
    }

    /// The transport stack of this run: answers from disk when `offline` gives any, else live through the one
    /// polite fetcher, paced together with other bookrule processes through the shared host state
    /// (`hostStatePath`). With `--verbose` every request (or answer from disk) is logged on stderr; `observe`
    /// sees every request event too, `waits` every wait as it starts and ends.
    func stack(
        terminal: Terminal, offline: OfflinePages? = nil, observe: (@Sendable (FetchEvent) -> Void)? = nil,
        waits: (@Sendable (FetchWait) -> Void)? = nil, logins: LoginVault? = nil
    ) throws -> TransportStack {
        if let offline, offline.isOffline {
            var answers: (@Sendable (ObservingTransport.Exchange) -> Void)?
            if verbose { answers = { exchange in terminal.error(exchange.description) } }
            return try TransportStack.offline(pages: offline.pages, harPath: offline.harPath,
                                              observers: TransportStack.Observers(answers: answers))
        }
        return TransportStack.live(policy: policy, curl: curl, hostStatePath: Self.hostStatePath(),
                                   observers: observers(terminal: terminal, observe: observe, waits: waits))
            .withLogins(logins ?? Self.loginVault())
    }

    /// The stored logins (`bookrule login`): `$XDG_CONFIG_HOME/bookrule/`, or `~/.config/bookrule/`; read only
    /// when a source asks for its login.
    static func loginVault(environment: [String: String] = ProcessInfo.processInfo.environment) -> LoginVault {
        LoginVault(directory: LoginVault.defaultDirectory(environment: environment))
    }

    /// The polite fetcher every live request of this run goes through (see `stack`), for commands that only
    /// fetch live.
    func fetcher(
        terminal: Terminal, observe: (@Sendable (FetchEvent) -> Void)? = nil, waits: (@Sendable (FetchWait) -> Void)? = nil
    ) -> PoliteFetcher {
        TransportStack.politeFetcher(policy: policy, curl: curl, hostStatePath: Self.hostStatePath(),
                                     observers: observers(terminal: terminal, observe: observe, waits: waits))
    }

    private func observers(
        terminal: Terminal, observe: (@Sendable (FetchEvent) -> Void)?, waits: (@Sendable (FetchWait) -> Void)?
    ) -> TransportStack.Observers {
        let verbose = self.verbose
        var requests: (@Sendable (FetchEvent) -> Void)?
        if verbose || observe != nil {
            requests = { event in
                if verbose { terminal.error(event.description) }
                observe?(event)
            }
        }
        return TransportStack.Observers(requests: requests, waits: waits, warnings: { terminal.error("warning: \($0)") })
    }

    /// The shared host state: `$XDG_STATE_HOME/bookrule/hosts.sqlite`, or `~/.local/state/bookrule/hosts.sqlite`.
    static func hostStatePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        HostTurnStore.defaultPath(environment: environment)
    }

    private static func seconds(_ text: String, _ name: String) throws(UsageError) -> Duration {
        guard let value = Double(text), value >= 0, value < 86_400 * 7 else {
            throw UsageError("\(name) takes a number of seconds, not \"\(text)\"")
        }
        return .milliseconds(Int64((value * 1000).rounded()))
    }
}
