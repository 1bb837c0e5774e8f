import BookRuleHTTP

/// What a source's engine sends through, set up as every command that fetches sets it up: the source's
/// `concurrentRate` replaces the default pacing for its host on the shared `PoliteFetcher`, and the source
/// keeps cookies in a jar of its own unless it sets `enabledCookieJar` to false; over a `LoginStoreTransport`
/// the source's stored login goes on every request (`SourceLoginTransport`).
public struct SourceTransport: Sendable {
    /// The transport to give the source's `SourceEngine`.
    public let transport: any HTTPTransport
    /// What was not applied and why (an unreadable `concurrentRate`), for the user; the source still runs.
    public let warnings: [String]

    /// The transport for `source` over `upstream` (the shared fetcher, a recording of it, a HAR replay…);
    /// `pacing` is the fetcher the source's `concurrentRate` is set on (nil when nothing is paced, as in a
    /// replay).
    public init(for source: BookSource, over upstream: any HTTPTransport, pacing: PoliteFetcher?) {
        var warnings: [String] = []
        if let text = source.concurrentRate, let pacing {
            do {
                if let rate = try ConcurrentRate.parse(text) { try pacing.setConcurrentRate(rate, forHostOf: source.url) }
            } catch {
                warnings.append("concurrentRate \"\(text)\" ignored: \(error)")
            }
        }
        let jar = source.enabledCookieJar ? CookieJar(upstream: upstream) : nil
        transport = Self.withLogin(of: source, over: jar ?? upstream, stack: upstream, jar: jar?.store, warnings: &warnings)
        self.warnings = warnings
    }

    /// The transport for `source` over the shared polite `fetcher`, paced by it.
    public init(for source: BookSource, over fetcher: PoliteFetcher) {
        self.init(for: source, over: fetcher, pacing: fetcher)
    }
}
