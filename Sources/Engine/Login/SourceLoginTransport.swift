import BookRuleDocument
import BookRuleHTTP
import BookRuleLocking

/// One source's login on the way out: the stored login headers are set on every request of the source to its
/// own site (Legado adds them to every URL the source fetches; here a webView page's requests to other sites
/// do not get them), and every request carries the login's values as
/// `secrets` (every value the login has held in this run), so a recording redacts them. It also keeps the login: what scripts store (`putLoginHeader`,
/// `putLoginInfo`) is saved at once, and `keepCookies()` saves the cookies a login left in the source's jar.
public final class SourceLoginTransport: HTTPTransport {
    private let upstream: any HTTPTransport
    /// The source's `bookSourceUrl`, the store's key.
    public let sourceKey: String
    private let store: any LoginStore
    private let jar: CookieStore?
    private let state: Locked<StoredLogin>
    private let sites = Locked<Set<String>>([])
    private let secrets = SecretSet()
    private let secretFields: Set<String>

    /// The login of `sourceKey` kept in `store`, sent through `upstream`; its stored cookies go into `jar` (the
    /// source's cookie jar, nil when the source has none). The form's `secretFields` (its passwords) are
    /// redacted wherever they appear in a recording, its other values only in request bodies.
    /// - Throws: when the store cannot be read.
    public init(upstream: any HTTPTransport, sourceKey: String, store: any LoginStore, jar: CookieStore?,
                secretFields: Set<String> = []) throws {
        self.secretFields = secretFields
        self.upstream = upstream
        self.sourceKey = sourceKey
        self.store = store
        self.jar = jar
        let login = try store.login(forSource: sourceKey) ?? StoredLogin()
        state = Locked(login)
        keepSecrets(of: login)
        if let jar {
            for (url, pairs) in login.cookies.sorted(by: { $0.key < $1.key }) {
                let fields = pairs.split(separator: ";").map { HTTPHeader("Set-Cookie", $0.trimmingASCIIWhitespace() + "; Path=/") }
                jar.keep(fields, from: url)
            }
        }
    }

    /// The login as it stands.
    public var login: StoredLogin { state.withLock { $0 } }

    /// Changes the login and saves it.
    /// - Throws: when the store cannot be written.
    public func update(_ change: (inout StoredLogin) -> Void) throws {
        let login = state.withLock { login in
            change(&login)
            return login
        }
        keepSecrets(of: login)
        try store.save(login, forSource: sourceKey)
    }

    /// Saves the cookies the source's jar holds for every site it has sent to since it was made (the login's
    /// pages) and for the source's own site.
    public func keepCookies() throws {
        guard let jar else { return }
        let sites = sites.withLock { $0 }.union([Self.site(of: sourceKey) ?? sourceKey])
        try update { login in
            for site in sites {
                let pairs = jar.cookies(for: site)
                if pairs.isEmpty { login.cookies[site] = nil } else { login.cookies[site] = pairs.joined(separator: "; ") }
            }
        }
    }

    /// Sends `request` with the login's headers and secrets.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await upstream.send(withLogin(request))
    }

    /// Streams `request` with the login's headers and secrets.
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        try await upstream.stream(withLogin(request), to: sink)
    }

    private func withLogin(_ request: HTTPRequest) -> HTTPRequest {
        var outgoing = request
        let login = login
        if isOwnSite(request.url, login: login) {
            for field in login.headerFields { outgoing.headers.set(field.name, field.value) }
        }
        outgoing.secrets = secrets
        if let site = Self.site(of: request.url) { sites.withLock { _ = $0.insert(site) } }
        return outgoing
    }

    /// Whether `url` is on the source's own site (its `bookSourceUrl`'s registrable domain, `api.x.com` for
    /// `www.x.com`) or one the login left cookies on: only those get the login's headers. A webView page's
    /// other requests (a CDN, analytics) go through this transport too and must not carry an `Authorization`.
    private func isOwnSite(_ url: String, login: StoredLogin) -> Bool {
        guard let host = URLOrigin(url)?.host else { return false }
        let own = ([sourceKey] + login.cookies.keys).compactMap { URLOrigin($0)?.host }
        return own.contains { Self.sameSite(host, $0) }
    }

    /// Two hosts of one registrable domain (an IP address or a name without one only matches itself).
    static func sameSite(_ first: String, _ second: String) -> Bool {
        let first = first.lowercased(), second = second.lowercased()
        if first == second { return true }
        guard let domain = PublicSuffix.registrableDomain(of: first) else { return false }
        return domain == PublicSuffix.registrableDomain(of: second)
    }

    private func keepSecrets(of login: StoredLogin) {
        let found = login.secrets(secretFields: secretFields)
        secrets.insert(found.secrets)
        secrets.insert(formValues: found.formValues)
    }

    /// `https://host:443/`: where a site's cookies are kept and read back.
    private static func site(of url: String) -> String? {
        URLOrigin(url).map { "\($0)/" }
    }
}
