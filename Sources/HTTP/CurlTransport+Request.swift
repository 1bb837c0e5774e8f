import CCurl
import Foundation
import BookRuleDocument

// Building a hop: the request as libcurl will send it (headers, proxy, limits), and the URL checks.
extension CurlTransport {
    /// Everything one transfer needs, computed in async code and handed to the transfer thread.
    struct Hop: Sendable {
        var url: String
        var method: String
        var headerLines: [String]
        var body: [UInt8]?
        var acceptEncoding: String?
        /// The request's own Accept-Encoding, sent as it is by a stream (which libcurl does not decode).
        var requestedEncoding: String?
        var proxy: String
        var noProxy: String
        var connectTimeoutMilliseconds: Int
        var timeoutMilliseconds: Int
        var connectTimeoutClipped: Bool
        var bodyLimit: Int
        /// For streams: the seconds without a byte after which the transfer fails.
        var stallSeconds: Int
        /// Where a final (non-redirect) response goes as it arrives, for `stream`; nil collects the body.
        var sink: (any HTTPBodySink)?
        /// Ports of this machine the hop may not connect to.
        var reservedPorts: ReservedLocalPorts?
    }

    /// What one transfer produced.
    struct HopResult: Sendable {
        var code: UInt32 = CURLE_OK.rawValue
        var message = ""
        var status = 0
        var headers: [HTTPHeader] = []
        var body: [UInt8] = []
        var bodyCapacity = 0
        var bodyTooLarge = false
        var cancelled = false
        /// The response went to the sink (it was not a redirect).
        var streamed = false
        /// Body bytes the sink accepted.
        var delivered = 0
        /// The sink stopped the transfer.
        var stoppedBySink = false
        /// The reserved address:port the connection reached (nothing was sent).
        var refusedDestination: String?
    }

    func makeHop(
        _ request: HTTPRequest, url: String, deadline: ContinuousClock.Instant, environment: [String: String]
    ) -> Hop {
        let headers = request.headers
        let requestedEncoding = headers.value(for: "Accept-Encoding")
        let acceptEncoding = requestedEncoding ?? configuration.acceptEncoding
        var lines: [String] = []
        for header in headers where header.name.lowercased() != "accept-encoding" {
            let name = Self.headerSafe(header.name).trimmingASCIIWhitespace()
            guard !name.isEmpty, !name.contains(":") else { continue }
            let value = Self.headerSafe(header.value)
            lines.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if headers.value(for: "Expect") == nil { lines.append("Expect:") }

        let scheme = URLReference.Parts(url)?.scheme ?? "http"
        let (proxy, noProxy) = Self.proxySettings(
            scheme: scheme, configuration: configuration, environment: environment)
        let remaining = Self.milliseconds(ContinuousClock.now.duration(to: deadline))
        let connect = Self.milliseconds(configuration.connectTimeout)
        return Hop(
            url: url, method: request.method, headerLines: lines, body: request.body,
            acceptEncoding: acceptEncoding?.isEmpty == true ? nil : acceptEncoding,
            requestedEncoding: requestedEncoding.map(Self.headerSafe), proxy: proxy, noProxy: noProxy,
            connectTimeoutMilliseconds: max(1, min(connect, remaining)), timeoutMilliseconds: remaining,
            connectTimeoutClipped: remaining < connect, bodyLimit: max(0, configuration.maxBodyBytes),
            stallSeconds: Int(Self.seconds(configuration.totalTimeout).rounded(.up)), sink: nil)
    }

    // MARK: - Helpers

    /// Checks the scheme and host and percent-encodes what may not appear raw in a URL (spaces, CJK, `|`),
    /// keeping existing `%XX` escapes.
    static func encodedURL(_ text: String) throws(HTTPTransportError) -> String {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let parts = URLReference.Parts(trimmed), let scheme = parts.scheme else {
            throw .invalidURL(url: text, reason: "not an absolute URL (it has no scheme such as https:)")
        }
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(url: text) }
        guard let authority = parts.authority, !authority.isEmpty else {
            throw .invalidURL(url: text, reason: "it has no host")
        }
        guard authority.utf8.allSatisfy({ $0 < 0x80 }) else {
            throw .invalidURL(url: text, reason: "non-ASCII host names are not supported; write the xn-- (punycode) form")
        }
        return URLEncoding.encode(trimmed)
    }

    /// The proxy and no-proxy list for a URL with `scheme`: the configuration's, else the environment's
    /// (`<scheme>_proxy` then `all_proxy`, lower case before upper case, as curl reads them except that curl
    /// ignores upper-case `HTTP_PROXY`). An empty proxy means a direct connection.
    static func proxySettings(
        scheme: String, configuration: Configuration, environment: [String: String]
    ) -> (proxy: String, noProxy: String) {
        func lookup(_ name: String) -> String? {
            guard configuration.useEnvironmentProxy else { return nil }
            for key in [name.lowercased(), name.uppercased()] {
                if let value = environment[key]?.trimmingASCIIWhitespace(), !value.isEmpty { return value }
            }
            return nil
        }
        let proxy = configuration.proxy ?? lookup("\(scheme.lowercased())_proxy") ?? lookup("all_proxy") ?? ""
        let noProxy = configuration.noProxy ?? lookup("no_proxy") ?? ""
        return (proxy.trimmingASCIIWhitespace(), noProxy.trimmingASCIIWhitespace())
    }

    /// `proxy` with any password replaced by `***`, for error messages.
    static func redactedProxy(_ proxy: String) -> String {
        guard let at = proxy.lastIndex(of: "@") else { return proxy }
        let start = proxy.range(of: "://").map(\.upperBound) ?? proxy.startIndex
        guard start < at else { return proxy }
        let userInfo = proxy[start..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return proxy }
        return String(proxy[..<colon]) + ":***" + String(proxy[at...])
    }

    /// `text` with CR and LF replaced by spaces, so a header value cannot inject another field.
    private static func headerSafe(_ text: String) -> String {
        guard text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        if seconds > Int64(Int32.max) { return Int(Int32.max) * 1000 }
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
