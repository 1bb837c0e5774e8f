import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a transport produced no response at all (an HTTP error status is a response, not one of these).
public enum HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL could not be turned into one a client can send; `reason` says what is wrong with it.
    case invalidURL(url: String, reason: String)
    /// The URL (or a redirect target) is not http or https; bookrule never reads `file:` or other schemes.
    case unsupportedScheme(url: String)
    /// The connection failed (DNS, refused, TLS, reset); `message` is the underlying client's explanation.
    case connectionFailed(url: String, message: String)
    /// The server did not answer in time: no data for `seconds` seconds (`URLSessionTransport`), or the connect
    /// or overall limit of `seconds` seconds ran out (`CurlTransport`).
    case timedOut(url: String, seconds: Double)
    /// The server kept redirecting (more than `limit` hops, or in a loop).
    case tooManyRedirects(url: String, limit: Int)
    /// The server kept redirecting in a circle: `loop` lists the URLs from the first visit of the repeated one
    /// to its second, with nothing (method, cookies) changed in between.
    case redirectLoop(url: String, loop: [String])
    /// The response body is larger than `limit` bytes; the transfer was stopped before holding more.
    case bodyTooLarge(url: String, limit: Int)
    /// The proxy could not be reached or refused to carry the request; `proxy` has any password masked.
    case proxyFailed(url: String, proxy: String, message: String)

    /// What went wrong and what to try.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "invalid URL \"\(url)\": \(reason)"
        case .unsupportedScheme(let url):
            return "refusing to fetch \(url): only http and https URLs are supported"
        case .connectionFailed(let url, let message):
            return "could not fetch \(url): \(message) (check the address and the network connection)"
        case .timedOut(let url, let seconds):
            return "timed out fetching \(url) after \(Self.format(seconds)) s "
                + "(the site is slow or unreachable; try again or raise the timeout)"
        case .tooManyRedirects(let url, let limit):
            return "too many redirects fetching \(url) (more than \(limit), or a redirect loop)"
        case .redirectLoop(let url, let loop):
            return "redirect loop fetching \(url): \(loop.joined(separator: " -> ")) "
                + "(the site sends requests round in a circle; it may want a cookie or a login first)"
        case .bodyTooLarge(let url, let limit):
            return "the response from \(url) is larger than \(limit) bytes and was not read "
                + "(raise the body size limit if the file really is that large)"
        case .proxyFailed(let url, let proxy, let message):
            return "could not fetch \(url) through the proxy \(proxy): \(message) "
                + "(check the proxy setting or the http_proxy/https_proxy/all_proxy environment variables)"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}

/// The plain network transport, over Foundation's URLSession (libcurl underneath on Linux).
///
/// Each transport owns one ephemeral session (no URL cache, no cookie storage) reused for all its requests; a
/// session per request has crashed on Linux. URLs are percent-encoded here, so sources may write spaces and CJK
/// characters. A browser User-Agent is sent unless the request sets one, because many novel sites refuse
/// Foundation's and curl's defaults.
///
/// Redirects are followed here rather than by URLSession, whose Linux implementation rewrites a
/// `Location: file:///x` into `http://same-host/x` and ignores per-request limits: at most
/// `maximumRedirects` hops, http(s) targets only, POST becoming GET on 301/302/303 as browsers do, cookies set by
/// a hop sent on to later hops of the same host, and `Cookie`/`Authorization` dropped when the host changes.
///
/// Limits of URLSession on Linux: the timeout is an inactivity timer, not an overall deadline; responses are
/// always gunzipped; response headers come back as a dictionary, so repeated fields are merged and the order is
/// lost (they are returned sorted by name).
public final class URLSessionTransport: HTTPTransport {
    /// A current desktop Chrome on Windows, as sent when the request carries no User-Agent.
    public static let defaultUserAgent =
        "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36"

    /// The most redirects followed for one request before `HTTPTransportError.tooManyRedirects`.
    public static let maximumRedirects = 10

    /// Seconds without data after which a request fails with `HTTPTransportError.timedOut`.
    public let timeout: TimeInterval
    /// The User-Agent sent when a request has none.
    public let userAgent: String

    private let session: URLSession

    /// Creates a transport with its own session. `timeout` is the inactivity timeout in seconds (URLSession on
    /// Linux honours only the session-wide value, hence one session per transport); `userAgent` replaces the
    /// default browser string for requests that set none.
    public init(timeout: TimeInterval = 30, userAgent: String = URLSessionTransport.defaultUserAgent) {
        self.timeout = timeout
        self.userAgent = userAgent
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent]
        configuration.timeoutIntervalForRequest = timeout
        session = URLSession(configuration: configuration, delegate: RedirectRefuser(), delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// Sends `request`, following redirects, and returns the final response with its raw body bytes.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var current = request
        current.method = request.method.uppercased()
        if current.headers.value(for: "User-Agent") == nil {
            current.headers.append(HTTPHeader("User-Agent", userAgent))
        }
        var carriedCookies: [(name: String, value: String)] = []
        var hopSetCookies: [HTTPHeader] = []
        var redirects = 0
        while true {
            var response = try await sendOnce(current, cookies: carriedCookies)
            guard [301, 302, 303, 307, 308].contains(response.status),
                  let location = response.headers.value(for: "Location")
            else {
                response.headers.insert(contentsOf: hopSetCookies, at: 0)
                return response
            }
            guard let target = URLReference.resolve(location, against: response.url) else {
                throw HTTPTransportError.invalidURL(url: location, reason: "the redirect target from \(response.url) cannot be resolved")
            }
            guard URLReference.isHTTP(target) else { throw HTTPTransportError.unsupportedScheme(url: target) }
            redirects += 1
            if redirects > Self.maximumRedirects {
                throw HTTPTransportError.tooManyRedirects(url: request.url, limit: Self.maximumRedirects)
            }
            let oldHost = URLReference.Parts(response.url)?.authority?.lowercased()
            let newHost = URLReference.Parts(target)?.authority?.lowercased()
            for header in response.headers where header.name.lowercased() == "set-cookie" {
                hopSetCookies.append(header)
                let pair = header.value.split(separator: ";", maxSplits: 1).first ?? ""
                if let equals = pair.firstIndex(of: "=") {
                    let name = pair[..<equals].trimmingASCIIWhitespace()
                    carriedCookies.removeAll { $0.name == name }
                    carriedCookies.append((name, pair[pair.index(after: equals)...].trimmingASCIIWhitespace()))
                }
            }
            if oldHost != newHost {
                carriedCookies = []
                current.headers.removeAll { ["cookie", "authorization"].contains($0.name.lowercased()) }
            }
            if response.status == 303 || ((response.status == 301 || response.status == 302) && current.method == "POST") {
                if current.method != "HEAD" { current.method = "GET" }
                current.body = nil
                current.headers.removeAll { ["content-type", "content-length"].contains($0.name.lowercased()) }
            }
            current.url = target
        }
    }

    /// One request without following redirects.
    private func sendOnce(_ request: HTTPRequest, cookies: [(name: String, value: String)]) async throws -> HTTPResponse {
        let url = try Self.makeURL(request.url)
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpShouldHandleCookies = false
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        if !cookies.isEmpty {
            let carried = cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
            if let existing = urlRequest.value(forHTTPHeaderField: "Cookie"), !existing.isEmpty {
                urlRequest.setValue(existing + "; " + carried, forHTTPHeaderField: "Cookie")
            } else {
                urlRequest.setValue(carried, forHTTPHeaderField: "Cookie")
            }
        }
        if let body = request.body {
            urlRequest.httpBody = Data(body)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch {
            throw mapError(error, url: request.url)
        }
        guard let http = response as? HTTPURLResponse else {
            throw HTTPTransportError.connectionFailed(url: request.url, message: "the reply was not an HTTP response")
        }
        var headers: [HTTPHeader] = []
        for (key, value) in http.allHeaderFields {
            headers.append(HTTPHeader("\(key)", "\(value)"))
        }
        headers.sort { $0.name.lowercased() < $1.name.lowercased() }
        return HTTPResponse(
            url: http.url?.absoluteString ?? url.absoluteString, status: http.statusCode, headers: headers,
            body: [UInt8](data)
        )
    }

    private func mapError(_ error: any Error, url: String) -> HTTPTransportError {
        if let error = error as? HTTPTransportError { return error }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .timedOut:
                return .timedOut(url: url, seconds: timeout)
            case .httpTooManyRedirects:
                return .tooManyRedirects(url: url, limit: Self.maximumRedirects)
            case .unsupportedURL:
                return .unsupportedScheme(url: url)
            default:
                return .connectionFailed(url: url, message: Self.message(for: urlError))
            }
        }
        return .connectionFailed(url: url, message: "\(error)")
    }

    private static func message(for error: URLError) -> String {
        let reason: String
        switch error.code {
        case .cannotFindHost, .dnsLookupFailed: reason = "host not found"
        case .cannotConnectToHost: reason = "connection refused or host unreachable"
        case .networkConnectionLost: reason = "the connection was closed before the response was complete"
        case .notConnectedToInternet: reason = "no network connection"
        case .secureConnectionFailed: reason = "TLS handshake failed"
        case .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
             .serverCertificateHasUnknownRoot:
            reason = "the server's TLS certificate was rejected"
        case .badServerResponse: reason = "the server sent a malformed or empty response"
        case .cancelled: reason = "the request was cancelled"
        default: reason = "URL error \(error.code.rawValue)"
        }
        if let detail = error.userInfo[NSLocalizedDescriptionKey] as? String, !detail.isEmpty {
            return "\(reason): \(detail)"
        }
        return reason
    }

    /// Checks the scheme and percent-encodes `text` into a URL Foundation accepts.
    static func makeURL(_ text: String) throws(HTTPTransportError) -> URL {
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
        let encoded = URLEncoding.encode(trimmed)
        guard let url = URL(string: encoded), url.host?.isEmpty == false else {
            throw .invalidURL(url: text, reason: "Foundation cannot parse it even after percent-encoding (\(encoded))")
        }
        return url
    }
}

/// Session delegate that stops URLSession from following redirects, so `URLSessionTransport.send` sees each
/// 3xx and follows it under its own rules.
private final class RedirectRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// Percent-encoding of URL text, shared by the network transport and HAR replay matching.
enum URLEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func isHex(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        default: return byte - 0x61 + 10
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Characters RFC 3986 allows literally in a URL besides unreserved ones: gen-delims and sub-delims.
    private static func isDelimiter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: ":"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"), UInt8(ascii: "@"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
             UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }

    /// The byte range of the authority (after `scheme://`, up to the next `/`, `?` or `#`), if any.
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int>? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
              bytes.count >= colon + 3,
              bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/")
        else { return nil }
        let start = colon + 3
        var end = start
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) {
            end += 1
        }
        return start..<end
    }

    /// `text` with every byte that may not appear literally in a URL (space, `|`, `"`, `<`, non-ASCII, …)
    /// written as `%XX` of its UTF-8 bytes. Existing `%XX` escapes are kept; a `%` not followed by two hex digits
    /// becomes `%25`; a second `#` becomes `%23`; `[` and `]` are kept only in the host (IPv6 literals).
    static func encode(_ text: String) -> String {
        let bytes = Array(text.utf8)
        let authority = authorityRange(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var inFragment = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            var keep = isUnreserved(byte) || isDelimiter(byte)
            if byte == UInt8(ascii: "%") {
                keep = index + 2 < bytes.count && isHex(bytes[index + 1]) && isHex(bytes[index + 2])
            } else if byte == UInt8(ascii: "#") {
                keep = !inFragment
                inFragment = true
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") {
                keep = authority?.contains(index) ?? false
            }
            if keep {
                output.append(byte)
            } else {
                output.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            }
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A form of `text` for deciding whether two URLs name the same resource: percent-encoded as `encode` does,
    /// fragment dropped, `%xx` hex upper-cased, escapes of unreserved characters decoded, scheme and host
    /// lower-cased, default port removed, and an empty path written as `/`.
    static func normalizedForComparison(_ text: String) -> String {
        var bytes = Array(encode(text.trimmingASCIIWhitespace()).utf8)
        if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHex(bytes[index + 1]), isHex(bytes[index + 2]) {
                let value = hexValue(bytes[index + 1]) << 4 | hexValue(bytes[index + 2])
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output.append(contentsOf: [UInt8(ascii: "%"), hexDigits[Int(value >> 4)], hexDigits[Int(value & 0x0F)]])
                }
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        guard let authority = authorityRange(output) else { return String(decoding: output, as: UTF8.self) }
        let scheme = String(decoding: output[..<(authority.lowerBound - 3)], as: UTF8.self).lowercased()
        var host = String(decoding: output[authority], as: UTF8.self)
        var userInfo = ""
        if let at = host.lastIndex(of: "@") {
            userInfo = String(host[...at])
            host = String(host[host.index(after: at)...])
        }
        host = host.lowercased()
        if scheme == "http", host.hasSuffix(":80") { host.removeLast(3) }
        if scheme == "https", host.hasSuffix(":443") { host.removeLast(4) }
        var rest = String(decoding: output[authority.upperBound...], as: UTF8.self)
        if rest.isEmpty || rest.hasPrefix("?") { rest = "/" + rest }
        return scheme + "://" + userInfo + host + rest
    }
}
