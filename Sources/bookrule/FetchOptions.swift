import BookRule
import Foundation

/// The options every command that fetches takes, and the polite transport they build: libcurl underneath,
/// the shared `PoliteFetcher` on top (the README describes them).
struct FetchOptions {
    static let valueNames: Set<String> = [
        "--delay", "--failure-delay", "--max-retries", "--retry-after-cap", "--ua-rotation", "--timeout", "--proxy",
    ]
    static let flagNames: Set<String> = ["--verbose"]

    static let help = """
      --delay SECONDS         Gap after a successful request to the same host (default 0.5)
      --failure-delay SECONDS Gap after a failed request to the same host (default 5)
      --max-retries N         Retries of a GET after 408/429/5xx/connection errors (default 4)
      --retry-after-cap SECONDS  Longest Retry-After honoured; longer defers the host (default 300)
      --ua-rotation MODE      session (one browser UA per host), request, or off (default session)
      --timeout SECONDS       Overall limit for one request, redirects included (default 60)
      --proxy URL             Proxy for every request (default: http_proxy/https_proxy/no_proxy)
      --verbose               Log every request on stderr: time, host, status, bytes, wait, retry reason
    """

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
        if let value = arguments.value("--proxy") { curl.proxy = value }
        verbose = arguments.has("--verbose")
    }

    /// The polite fetcher every live request of this run goes through, pacing each host together with other
    /// bookrule processes through the shared host state (`hostStatePath`); `observe`, if given, sees every
    /// request event too.
    func fetcher(terminal: Terminal, observe: (@Sendable (FetchEvent) -> Void)? = nil) -> PoliteFetcher {
        let verbose = self.verbose
        var events: (@Sendable (FetchEvent) -> Void)?
        if verbose || observe != nil {
            events = { event in
                if verbose { terminal.error(event.description) }
                observe?(event)
            }
        }
        var ledger: HostTurnStore?
        do {
            ledger = try HostTurnStore(path: Self.hostStatePath(), lease: curl.totalTimeout + .seconds(30))
        } catch {
            terminal.error("warning: \(error)")
        }
        return PoliteFetcher(
            transport: CurlTransport(configuration: curl), policy: policy, ledger: ledger,
            ledgerFailed: { error in terminal.error("warning: \(error)") }, events: events)
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
