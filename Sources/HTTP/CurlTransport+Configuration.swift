import Foundation

extension CurlTransport {
    /// How a `CurlTransport` talks to the network. Fixed when the transport is created.
    public struct Configuration: Sendable, Hashable {
        /// Longest wait for a connection (DNS, TCP and TLS).
        public var connectTimeout: Duration
        /// Longest time for a whole `send`, redirects included.
        public var totalTimeout: Duration
        /// Largest body accepted, after content-encoding is undone; a longer one fails with `bodyTooLarge`.
        public var maxBodyBytes: Int
        /// The default `maxBodyBytes`: 32 MiB, far above any page a novel site serves.
        public static let defaultMaxBodyBytes = 32 << 20
        /// Most redirects followed for one request before `tooManyRedirects`.
        public var maxRedirects: Int
        /// Proxy for every request (`http://host:port`, `socks5h://host:port`, user:password allowed), winning
        /// over the environment; `""` means no proxy at all.
        public var proxy: String?
        /// Hosts reached without the proxy (curl's `NO_PROXY` syntax: comma-separated names, domains, IPs,
        /// `*`); nil takes `NO_PROXY`/`no_proxy` from the environment when `useEnvironmentProxy` is on.
        public var noProxy: String?
        /// Whether `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` (lower or upper case, lower case
        /// winning) are read when `proxy` is nil.
        public var useEnvironmentProxy: Bool
        /// The `Accept-Encoding` sent when the request has none; nil sends none. Encodings the server applies
        /// (gzip, deflate, br, zstd) are undone. A request's own `Accept-Encoding` field wins.
        public var acceptEncoding: String?
        /// The User-Agent sent when a request has none (never libcurl's own).
        public var userAgent: String

        /// Whether requests may go through a proxy: `proxy` names one, or (when it is nil) the environment's
        /// `http_proxy`, `https_proxy` or `all_proxy` does. A proxy connects on the request's behalf, so checks on
        /// the address connected to (`ReservedLocalPorts`) see only the proxy.
        public func mayUseProxy(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
            ["http", "https"].contains {
                !CurlTransport.proxySettings(scheme: $0, configuration: self, environment: environment).proxy.isEmpty
            }
        }

        /// Creates a configuration; the defaults suit fetching novel sites.
        public init(
            connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60),
            maxBodyBytes: Int = defaultMaxBodyBytes, maxRedirects: Int = 10, proxy: String? = nil, noProxy: String? = nil,
            useEnvironmentProxy: Bool = true, acceptEncoding: String? = "gzip, deflate",
            userAgent: String = CurlTransport.defaultUserAgent
        ) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maxBodyBytes = maxBodyBytes
            self.maxRedirects = maxRedirects
            self.proxy = proxy
            self.noProxy = noProxy
            self.useEnvironmentProxy = useEnvironmentProxy
            self.acceptEncoding = acceptEncoding
            self.userAgent = userAgent
        }
    }
}
