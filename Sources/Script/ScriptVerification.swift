/// A verification page a script opens (`java.startBrowserAwait(url, title[, refetchAfterSuccess])`,
/// `java.startBrowser(url, title)`): Legado shows it to the reader in a browser window and waits; here the
/// host loads it in the headless browser, lets its scripts pass the challenge, and keeps its cookies.
public struct ScriptVerification: Sendable, Equatable {
    /// The helper that asked, for messages (`java.startBrowserAwait`).
    public var helper: String
    /// The page: a URL (relative to the source), with `,{options}` as any of the source's URLs.
    public var url: String
    /// The title Legado gives the window (kept for messages).
    public var title: String
    /// Whether the answer is the URL fetched again with the page's cookies (Legado's default), rather than the
    /// page as the browser shows it.
    public var refetchAfterSuccess: Bool

    /// A verification page; see the properties.
    public init(helper: String, url: String, title: String, refetchAfterSuccess: Bool = true) {
        self.helper = helper
        self.url = url
        self.title = title
        self.refetchAfterSuccess = refetchAfterSuccess
    }
}

/// What a host without a browser says to `java.startBrowserAwait` and `java.startBrowser`.
public struct ScriptVerificationUnavailable: Error, CustomStringConvertible {
    /// The helper that asked.
    public var helper: String
    /// The refusal in words.
    public var description: String { "\(helper) needs a browser, and this script host has none" }
}
