/// The browser User-Agent strings the polite fetcher sends, and how it rotates through them.
///
/// Many novel sites refuse the default User-Agent of Foundation, curl or python, so a request that names no
/// User-Agent of its own gets one of these. A host keeps one UA for its whole session (so cookies and UA stay
/// consistent), changes to the next one after a 403, 429 or 503, and each run starts at a random place in the
/// pool.
public struct UserAgentPool: Sendable, Hashable {
    /// When the fetcher moves to another User-Agent.
    public enum Rotation: String, Sendable, Hashable, CaseIterable {
        /// One UA per host session; the next one after a 403, 429 or 503 from that host (the default).
        case session
        /// A different UA for every request to a host.
        case request
        /// Always the first UA of the pool (still a browser's).
        case off
    }

    /// The strings, in rotation order; never empty.
    public let agents: [String]

    /// Creates a pool. Nil when `agents` is empty or a string is empty or holds a control character (which
    /// would corrupt the request header).
    public init?(_ agents: [String]) {
        guard !agents.isEmpty else { return nil }
        for agent in agents {
            guard !agent.isEmpty, !agent.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                return nil
            }
        }
        self.agents = agents
    }

    private init(trusted agents: [String]) {
        self.agents = agents
    }

    /// The UA at `index`, counting round the pool (any integer works).
    public func agent(at index: Int) -> String {
        let count = agents.count
        return agents[((index % count) + count) % count]
    }

    /// Desktop browsers current in late 2026: Chrome, Firefox, Safari and Edge on Windows, macOS and Linux,
    /// with the frozen platform tokens those browsers actually send (`Windows NT 10.0`, `Mac OS X 10_15_7`).
    public static let currentBrowsers = UserAgentPool(trusted: [
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:153.0) Gecko/20100101 Firefox/153.0",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.5 Safari/605.1.15",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36 Edg/150.0.0.0",
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/149.0.0.0 Safari/537.36",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:153.0) Gecko/20100101 Firefox/153.0",
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/149.0.0.0 Safari/537.36",
        "Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0",
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/150.0.0.0 Safari/537.36 Edg/150.0.0.0",
    ])
}
