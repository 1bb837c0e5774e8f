import BookRuleHTTP

/// What a source's engine sends through, set up as every command that fetches sets it up, with what the
/// source keeps beside its requests as typed members: the source's `concurrentRate` replaces the default
/// pacing for its host on the shared `PoliteFetcher`; the source keeps cookies in a jar of its own (`cookies`)
/// unless it sets `enabledCookieJar` to false; and given a `LoginStore`, the source's stored login goes on every
/// request (`login`).
///
/// The engine takes its cookie jar and login from here (`SourceEngine.init(source:connection:)`), never by
/// looking down the transport chain, so a wrapper put on top (`wrapped(by:)`: a check's anti-bot watch, the
/// studio's capture) cannot hide them.
public struct SourceTransport: Sendable {
    /// What the source's requests go through: the login over the jar over the stack (or whatever wraps them).
    public let transport: any HTTPTransport
    /// The source's cookie jar (`enabledCookieJar`), nil when it keeps none.
    public let cookies: CookieJar?
    /// The source's stored login, nil when no login store was given or it could not be read.
    public let login: SourceLoginTransport?
    /// What was not applied and why (an unreadable `concurrentRate`, a login store that cannot be read), for
    /// the user; the source still runs.
    public let warnings: [String]

    /// The transport for `source` over `upstream` (the shared fetcher, a recording of it, a HAR replay…);
    /// `pacing` is the fetcher the source's `concurrentRate` is set on (nil when nothing is paced, as in a
    /// replay); `logins` is where the source's stored login is read and kept (nil: the source runs without
    /// one).
    public init(for source: BookSource, over upstream: any HTTPTransport, pacing: PoliteFetcher?,
                logins: (any LoginStore)? = nil) {
        var warnings: [String] = []
        if let text = source.concurrentRate, let pacing {
            do {
                if let rate = try ConcurrentRate.parse(text) { try pacing.setConcurrentRate(rate, forHostOf: source.url) }
            } catch {
                warnings.append("concurrentRate \"\(text)\" ignored: \(error)")
            }
        }
        let jar = source.enabledCookieJar ? CookieJar(upstream: upstream) : nil
        let login = logins.flatMap { Self.login(of: source, over: jar ?? upstream, store: $0, jar: jar?.store, warnings: &warnings) }
        transport = login ?? jar ?? upstream
        cookies = jar
        self.login = login
        self.warnings = warnings
    }

    /// The transport for `source` over the shared polite `fetcher`, paced by it, with its login from `logins`.
    public init(for source: BookSource, over fetcher: PoliteFetcher, logins: (any LoginStore)? = nil) {
        self.init(for: source, over: fetcher, pacing: fetcher, logins: logins)
    }

    /// `transport` as it is: no cookie jar, no login (an engine over an in-memory site, a replay in a test).
    public init(plain transport: any HTTPTransport) {
        self.transport = transport
        cookies = nil
        login = nil
        warnings = []
    }

    private init(transport: any HTTPTransport, cookies: CookieJar?, login: SourceLoginTransport?, warnings: [String]) {
        self.transport = transport
        self.cookies = cookies
        self.login = login
        self.warnings = warnings
    }

    /// This source's transport with `wrap` put on top (a check's anti-bot watch, the studio's capture): requests
    /// go through what `wrap` returns, and the cookie jar and login stay the source's.
    public func wrapped(by wrap: (any HTTPTransport) -> any HTTPTransport) -> SourceTransport {
        SourceTransport(transport: wrap(transport), cookies: cookies, login: login, warnings: warnings)
    }
}
