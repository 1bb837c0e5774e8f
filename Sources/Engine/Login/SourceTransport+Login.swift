import BookRuleHTTP

extension SourceTransport {
    /// `transport` with `source`'s stored login when `stack` (what the source's transport is built over)
    /// carries a login store, else `transport`. A store that cannot be read is a warning: the source runs
    /// without its login.
    static func withLogin(of source: BookSource, over transport: any HTTPTransport, stack: any HTTPTransport,
                          jar: CookieStore?, warnings: inout [String]) -> any HTTPTransport {
        guard let carrier = stack as? LoginStoreTransport, !source.url.isEmpty else { return transport }
        do {
            return try SourceLoginTransport(upstream: transport, sourceKey: source.url, store: carrier.store, jar: jar,
                                            secretFields: source.login.secretFieldNames)
        } catch {
            warnings.append("the stored login cannot be used, so requests go without it: \(error)")
            return transport
        }
    }
}
