import BookRuleLocking

/// The polite fetcher's User-Agent seam: which browser User-Agent each host is sent (a request's own
/// User-Agent wins), and when it changes (`UserAgentPool.Rotation`: per host session, moving on after a 403,
/// 429 or 503; per request; or never). Each host starts at a random place in the pool, so runs differ.
final class HostUserAgents: Sendable {
    private let pool: UserAgentPool
    private let rotation: UserAgentPool.Rotation
    private let random: FetchRandom
    /// Each host's place in the pool.
    private let places = Locked<[String: Int]>([:])

    init(pool: UserAgentPool, rotation: UserAgentPool.Rotation, random: FetchRandom) {
        self.pool = pool
        self.rotation = rotation
        self.random = random
    }

    /// Gives `key` its random starting place on first use.
    func register(_ key: String) {
        places.withLock { places in
            guard places[key] == nil else { return }
            places[key] = Int(random.next() % UInt64(max(1, pool.agents.count)))
        }
    }

    /// `request` with the host's User-Agent added unless it names its own, and the User-Agent it carries.
    /// With per-request rotation the host moves to the next one.
    func apply(to request: HTTPRequest, at key: String) -> (request: HTTPRequest, userAgent: String) {
        let agent = places.withLock { places -> String in
            let place = places[key] ?? 0
            switch rotation {
            case .off:
                return pool.agent(at: 0)
            case .session:
                return pool.agent(at: place)
            case .request:
                places[key] = place + 1
                return pool.agent(at: place)
            }
        }
        if let own = request.headers.value(for: "User-Agent") { return (request, own) }
        var outgoing = request
        outgoing.headers.append(HTTPHeader("User-Agent", agent))
        return (outgoing, agent)
    }

    /// Moves the host to the next User-Agent after a 403, 429 or 503 (per-session rotation only): the site
    /// may be refusing this one.
    func record(status: Int?, at key: String) {
        guard let status, status == 403 || status == 429 || status == 503, rotation == .session else { return }
        places.withLock { $0[key, default: 0] += 1 }
    }
}
