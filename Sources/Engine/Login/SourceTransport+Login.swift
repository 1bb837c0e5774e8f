import BookRuleHTTP

extension SourceTransport {
    /// `source`'s stored login in `store`, sending through `transport`, or nil when the source has no key (no
    /// `bookSourceUrl`) or the store cannot be read: then a warning says so and the source runs without its
    /// login.
    static func login(of source: BookSource, over transport: any HTTPTransport, store: any LoginStore,
                      jar: CookieStore?, warnings: inout [String]) -> SourceLoginTransport? {
        guard !source.url.isEmpty else { return nil }
        do {
            return try SourceLoginTransport(upstream: transport, sourceKey: source.url, store: store, jar: jar,
                                            secretFields: source.login.secretFieldNames)
        } catch {
            warnings.append("the stored login cannot be used, so requests go without it: \(error)")
            return nil
        }
    }
}
