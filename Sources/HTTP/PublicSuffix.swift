import CPSL

/// The Public Suffix List (libpsl), so a cookie jar can refuse `Domain=co.uk` or `Domain=github.io`
/// "supercookies" and group hosts by the domain someone registered.
///
/// `builtin` is the list compiled into libpsl (on Debian 12, the list of February 2023); `latest()` loads the
/// newer of that and the system's `/usr/share/publicsuffix` copy that the `publicsuffix` package updates.
/// Lookups never change the context, so one list is shared by all threads; it is freed by this object alone
/// (`psl_free`), except the built-in one, which libpsl owns and which is never freed.
package final class PublicSuffix: @unchecked Sendable {
    /// The list compiled into libpsl; nil only for a libpsl built without one.
    package static let builtin: PublicSuffix? = psl_builtin().map { PublicSuffix(context: $0, owned: false) }

    /// The process-wide list used by the static helpers: the newest available one.
    package static let shared: PublicSuffix? = latest() ?? builtin

    private let context: OpaquePointer
    private let owned: Bool

    private init(context: OpaquePointer, owned: Bool) {
        self.context = context
        self.owned = owned
    }

    /// The newer of the built-in list and the distribution's data file (`psl_latest`), or nil when neither
    /// loads. The returned object owns its context.
    package static func latest() -> PublicSuffix? {
        psl_latest(nil).map { PublicSuffix(context: $0, owned: true) }
    }

    /// Loads a list from a `public_suffix_list.dat` file (for tests or a pinned list); nil when it can't.
    package static func load(path: String) -> PublicSuffix? {
        psl_load_file(path).map { PublicSuffix(context: $0, owned: true) }
    }

    deinit {
        if owned { psl_free(context) }
    }

    /// Whether `domain` is a public suffix (ICANN or private section, wildcards included): `com`, `co.uk`,
    /// `github.io` are; `example.com` is not. Case and a trailing dot are ignored.
    package func isPublicSuffix(_ domain: String) -> Bool {
        let key = Self.normalised(domain)
        guard !key.isEmpty else { return false }
        return psl_is_public_suffix(context, key) != 0
    }

    /// The registrable domain ("eTLD+1") of `host`: `www.example.co.uk` → `example.co.uk`; nil for a public
    /// suffix itself or an empty host. Case and a trailing dot are ignored; the answer is lower case.
    package func registrableDomain(of host: String) -> String? {
        let key = Self.normalised(host)
        guard !key.isEmpty else { return nil }
        // psl_registrable_domain returns a pointer *into the string it was given*, so it is copied before
        // withCString's buffer goes away.
        return key.withCString { text -> String? in
            guard let result = psl_registrable_domain(context, text) else { return nil }
            return String(cString: result)
        }
    }

    /// Whether a cookie from `host` may set `Domain=cookieDomain` (the domain is the host or a parent of it,
    /// and not a public suffix unless it is the host itself), as RFC 6265 §5.3 step 5 asks.
    package func isCookieDomainAcceptable(host: String, cookieDomain: String) -> Bool {
        var domain = Self.normalised(cookieDomain)
        if domain.hasPrefix(".") { domain.removeFirst() }
        let hostKey = Self.normalised(host)
        guard !domain.isEmpty, !hostKey.isEmpty else { return false }
        return psl_is_cookie_domain_acceptable(context, hostKey, domain) != 0
    }

    /// Whether `domain` is a public suffix by the shared list (false if no list could be loaded).
    package static func isPublicSuffix(_ domain: String) -> Bool {
        shared?.isPublicSuffix(domain) ?? false
    }

    /// The registrable domain of `host` by the shared list (nil if no list could be loaded).
    package static func registrableDomain(of host: String) -> String? {
        shared?.registrableDomain(of: host)
    }

    /// libpsl matches lower-case UTF-8 or punycode labels only: lower-case it and drop one trailing dot.
    private static func normalised(_ domain: String) -> String {
        var key = domain.lowercased()
        if key.hasSuffix(".") { key.removeLast() }
        return key
    }
}
