import CCurl
import Foundation
import Synchronization
import BookRuleDocument

/// The real network transport, on libcurl directly.
///
/// Unlike Foundation's URLSession on Linux it has an overall deadline, caps the body while it streams in (never holding
/// more than `maxBodyBytes`), uses proxies, keeps response headers in order with repeats, and sends exactly the
/// `Accept-Encoding` it is told to (undoing the encoding the server then applies). Request headers go out in
/// order after the request line and `Host` (an `Accept-Encoding` among them is sent where libcurl puts it);
/// libcurl adds `Accept: */*` when the request has no `Accept`, and never its own User-Agent.
///
/// Redirects are followed here, hop by hop, rather than by libcurl, under the rules of `RedirectChain` (shared
/// with HAR replay): at most `maxRedirects`, http(s) targets only, loops detected, POST becoming GET on
/// 301/302/303, `Authorization` kept within the origin and the request's own `Cookie` within the host, and
/// every hop's cookies through the request's `CookieStore` (a source's jar) or one for the chain. The deadline
/// covers the whole chain.
///
/// Each transfer runs on its own thread (libcurl blocks), so async callers never block the cooperative pool; when
/// the system cannot start one, the request fails with `connectionFailed` instead of waiting forever.
/// Cancelling the calling task stops the transfer at once and `send` throws `CancellationError`. Idle libcurl
/// handles are kept for reuse, so keep-alive connections serve later requests to the same host.
public final class CurlTransport: HTTPTransport {
    /// How a `CurlTransport` talks to the network. Fixed when the transport is created.
    public struct Configuration: Sendable, Hashable {
        /// Longest wait for a connection (DNS, TCP and TLS).
        public var connectTimeout: Duration
        /// Longest time for a whole `send`, redirects included.
        public var totalTimeout: Duration
        /// Largest body accepted, after content-encoding is undone; a longer one fails with `bodyTooLarge`.
        public var maxBodyBytes: Int
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

        /// Creates a configuration; the defaults suit fetching novel sites.
        public init(
            connectTimeout: Duration = .seconds(10), totalTimeout: Duration = .seconds(60),
            maxBodyBytes: Int = 32 << 20, maxRedirects: Int = 10, proxy: String? = nil, noProxy: String? = nil,
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

    /// The User-Agent sent when a request carries none and nothing (such as the polite fetcher) chose one:
    /// the first of the current browser strings, never libcurl's own.
    public static let defaultUserAgent = UserAgentPool.currentBrowsers.agent(at: 0)

    /// The settings every request of this transport uses.
    public let configuration: Configuration

    private let idleHandles = Mutex<[CurlHandle]>([])
    /// DNS answers and TLS sessions shared by all of this transport's handles (nil if libcurl refused a
    /// share: each handle then keeps its own).
    private let share = CurlShare()
    private static let maximumIdleHandles = 4
    /// A stream moving fewer bytes per second than this for `totalTimeout` fails with `timedOut`.
    static let streamMinimumBytesPerSecond = 512

    /// What tests check about past transfers.
    struct Statistics: Sendable {
        /// The most bytes of body storage any transfer allocated.
        var peakBodyCapacity = 0
        /// Transfers performed (one per redirect hop).
        var transfers = 0
    }

    let statistics = Mutex(Statistics())

    /// Creates a transport; libcurl is initialised on first use.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Sends `request`, following redirects, and returns the final response with its (decoded) body bytes.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await exchange(request, sink: nil).response
    }

    /// Sends `request`, following redirects, and streams the final response into `sink` as it arrives: no body
    /// cap applies and the body is never held here. Instead of the overall deadline, a transfer slower than
    /// `streamMinimumBytesPerSecond` for `totalTimeout` fails with `timedOut`. Redirect responses never reach
    /// the sink. Nothing is decoded: the body arrives as served (Content-Encoding and all).
    public func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        let (response, delivered, stopped) = try await exchange(request, sink: sink)
        let head = HTTPResponseHead(url: response.url, status: response.status, headers: response.headers)
        return HTTPStreamResult(head: head, bodyBytes: delivered, stoppedBySink: stopped)
    }

    /// The redirect loop shared by `send` (no sink: the body is collected, capped) and `stream`.
    private func exchange(
        _ request: HTTPRequest, sink: (any HTTPBodySink)?
    ) async throws -> (response: HTTPResponse, delivered: Int, stoppedBySink: Bool) {
        try Task.checkCancellation()
        let deadline = ContinuousClock.now.advanced(by: configuration.totalTimeout)
        var first = request
        if first.headers.value(for: "User-Agent") == nil {
            first.headers.append(HTTPHeader("User-Agent", configuration.userAgent))
        }
        _ = try Self.encodedURL(request.url)
        var chain = RedirectChain(first, limit: configuration.maxRedirects)
        let environment = configuration.useEnvironmentProxy ? ProcessInfo.processInfo.environment : [:]

        let handle = try checkOutHandle(for: request.url)
        defer { checkIn(handle) }
        let cancel = CancelState(handle: handle)

        while true {
            try Task.checkCancellation()
            let next = chain.hop()
            let url = try Self.encodedURL(next.url)
            var prepared = makeHop(next, url: url, deadline: deadline, environment: environment)
            prepared.sink = sink
            let hop = prepared
            guard hop.timeoutMilliseconds > 0 else {
                throw HTTPTransportError.timedOut(url: url, seconds: Self.seconds(configuration.totalTimeout))
            }
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<HopResult, Never>) in
                    let started = BlockingWorkThread.start {
                        continuation.resume(returning: Self.perform(hop, on: handle, cancel: cancel))
                    }
                    if !started {
                        continuation.resume(returning: HopResult(
                            code: CURLE_FAILED_INIT.rawValue,
                            message: "no thread could be started for the transfer (the system is out of threads or memory)"))
                    }
                }
            } onCancel: {
                cancel.cancel()
            }
            statistics.withLock {
                $0.transfers += 1
                $0.peakBodyCapacity = max($0.peakBodyCapacity, result.bodyCapacity)
            }
            let response = try mapResult(result, hop: hop)
            // A streamed response went to the sink: it is the final one.
            let location = result.streamed ? nil : response.headers.value(for: "Location")
            let follows: Bool
            do {
                follows = try chain.received(
                    status: response.status, headers: response.headers, location: location, from: url)
            } catch {
                throw Self.transportError(error, original: request.url)
            }
            if !follows { return (response, result.delivered, result.stoppedBySink) }
        }
    }

    /// The transport's error for a redirect the chain refused.
    private static func transportError(_ refusal: RedirectChain.Refusal, original: String) -> HTTPTransportError {
        switch refusal {
        case .unresolvable(let location, let from):
            return .invalidURL(url: location, reason: "the redirect target from \(from) cannot be resolved")
        case .unsupportedScheme(let target, _, _):
            return .unsupportedScheme(url: target)
        case .tooMany(let limit):
            return .tooManyRedirects(url: original, limit: limit)
        case .loop(let urls):
            return .redirectLoop(url: original, loop: urls)
        }
    }

    // MARK: - One hop

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
    }

    private func makeHop(
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

    private func mapResult(_ result: HopResult, hop: Hop) throws -> HTTPResponse {
        if result.cancelled { throw CancellationError() }
        if result.stoppedBySink {
            return HTTPResponse(url: hop.url, status: result.status, headers: result.headers)
        }
        if result.bodyTooLarge { throw HTTPTransportError.bodyTooLarge(url: hop.url, limit: hop.bodyLimit) }
        let code = CURLcode(rawValue: result.code)
        if code == CURLE_OK {
            return HTTPResponse(url: hop.url, status: result.status, headers: result.headers, body: result.body)
        }
        let message = result.message
        if code == CURLE_OPERATION_TIMEDOUT {
            if message.hasPrefix("Operation too slow") {
                throw HTTPTransportError.timedOut(url: hop.url, seconds: Self.seconds(configuration.totalTimeout))
            }
            let connectPhase = !message.hasPrefix("Operation timed out")
            let limit = connectPhase && !hop.connectTimeoutClipped
                ? configuration.connectTimeout : configuration.totalTimeout
            throw HTTPTransportError.timedOut(url: hop.url, seconds: Self.seconds(limit))
        }
        // The scheme and URL were checked before libcurl saw them, so UNSUPPORTED_PROTOCOL (an HTTP/0.9 or
        // garbled reply) and URL_MALFORMAT (a bad proxy URL) are not the request URL's fault.
        if !hop.proxy.isEmpty {
            let lowered = message.lowercased()
            let proxyError = code == CURLE_COULDNT_RESOLVE_PROXY || code == CURLE_PROXY
                || code == CURLE_COULDNT_CONNECT || lowered.contains("proxy") || lowered.contains("connect tunnel")
            if proxyError {
                throw HTTPTransportError.proxyFailed(
                    url: hop.url, proxy: Self.redactedProxy(hop.proxy), message: message)
            }
        }
        throw HTTPTransportError.connectionFailed(url: hop.url, message: message)
    }

    /// Runs one transfer to completion on the calling (dedicated) thread.
    static func perform(_ hop: Hop, on handle: CurlHandle, cancel: CancelState) -> HopResult {
        let easy = handle.easy
        let multi = handle.multi
        curl_easy_reset(easy)
        defer { curl_easy_reset(easy) }
        let transfer = Transfer(
            limit: hop.bodyLimit, expectsBody: hop.method != "HEAD", cancel: cancel, url: hop.url, sink: hop.sink)
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var headerLines = hop.headerLines
        // A stream is stored as served: the request's own Accept-Encoding goes out as a plain header and
        // libcurl decodes nothing (a decoded body would not match Content-Length or the ranges of a resume).
        if hop.sink != nil, let encoding = hop.requestedEncoding { headerLines.append("Accept-Encoding: \(encoding)") }
        for line in headerLines {
            guard let appended = curl_slist_append(headerList, line) else {
                return HopResult(code: CURLE_OUT_OF_MEMORY.rawValue, message: "out of memory building the headers")
            }
            headerList = appended
        }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        return errorBuffer.withUnsafeMutableBufferPointer { errors -> HopResult in
            withExtendedLifetime(transfer) {
                let context = Unmanaged.passUnretained(transfer).toOpaque()
                var setupError: String?
                func check(_ code: CURLcode, _ what: String) {
                    if code != CURLE_OK, setupError == nil {
                        setupError = "libcurl rejected \(what): \(String(cString: curl_easy_strerror(code)))"
                    }
                }
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errors.baseAddress), "ERRORBUFFER")
                if let share = handle.share {
                    // After every reset: curl_easy_reset forgets the share too.
                    check(bookrule_curl_setopt_pointer(easy, CURLOPT_SHARE, share.handle), "SHARE")
                }
                check(bookrule_curl_setopt_string(easy, CURLOPT_URL, hop.url), "the URL")
                check(bookrule_curl_setopt_long(easy, CURLOPT_NOSIGNAL, 1), "NOSIGNAL")
                check(bookrule_curl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0), "FOLLOWLOCATION")
                check(bookrule_curl_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"), "PROTOCOLS_STR")
                check(bookrule_curl_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"),
                      "REDIR_PROTOCOLS_STR")
                check(bookrule_curl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, hop.connectTimeoutMilliseconds),
                      "CONNECTTIMEOUT_MS")
                if hop.sink == nil {
                    check(bookrule_curl_setopt_long(easy, CURLOPT_TIMEOUT_MS, hop.timeoutMilliseconds), "TIMEOUT_MS")
                } else {
                    // A large download has no overall deadline; a stalled one fails after the same time.
                    let stall = max(1, hop.stallSeconds)
                    // Slower than this for that long is a server trickling bytes while it holds the host's turn.
                    check(bookrule_curl_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, Self.streamMinimumBytesPerSecond),
                          "LOW_SPEED_LIMIT")
                    check(bookrule_curl_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, stall), "LOW_SPEED_TIME")
                }
                check(bookrule_curl_setopt_string(easy, CURLOPT_PROXY, hop.proxy), "the proxy")
                check(bookrule_curl_setopt_string(easy, CURLOPT_NOPROXY, hop.noProxy), "NOPROXY")
                check(bookrule_curl_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1), "SUPPRESS_CONNECT_HEADERS")
                check(bookrule_curl_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1), "TCP_KEEPALIVE")
                if hop.sink != nil {
                    check(bookrule_curl_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0), "HTTP_CONTENT_DECODING")
                } else if let encoding = hop.acceptEncoding {
                    check(bookrule_curl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, encoding), "ACCEPT_ENCODING")
                }
                check(bookrule_curl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList), "the headers")
                switch hop.method {
                case "GET":
                    check(bookrule_curl_setopt_long(easy, CURLOPT_HTTPGET, 1), "HTTPGET")
                case "HEAD":
                    check(bookrule_curl_setopt_long(easy, CURLOPT_NOBODY, 1), "NOBODY")
                default:
                    if hop.method != "POST" {
                        check(bookrule_curl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, hop.method), "the method")
                    }
                    if hop.body != nil || hop.method == "POST" {
                        let body = hop.body ?? []
                        check(bookrule_curl_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)),
                              "POSTFIELDSIZE_LARGE")
                        if body.isEmpty {
                            check(bookrule_curl_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, ""), "the body")
                        } else {
                            body.withUnsafeBytes { bytes in
                                check(bookrule_curl_setopt_string(
                                    easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress!.assumingMemoryBound(to: CChar.self)),
                                      "the body")
                            }
                        }
                    }
                }
                check(bookrule_curl_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION, curlWrite), "WRITEFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_WRITEDATA, context), "WRITEDATA")
                check(bookrule_curl_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION, curlHeader), "HEADERFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_HEADERDATA, context), "HEADERDATA")
                check(bookrule_curl_setopt_xferinfo_callback(easy, CURLOPT_XFERINFOFUNCTION, curlProgress),
                      "XFERINFOFUNCTION")
                check(bookrule_curl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context), "XFERINFODATA")
                check(bookrule_curl_setopt_long(easy, CURLOPT_NOPROGRESS, 0), "NOPROGRESS")
                if let setupError {
                    return HopResult(code: CURLE_FAILED_INIT.rawValue, message: setupError)
                }

                var code = CURLE_OK
                var finished = false
                if curl_multi_add_handle(multi, easy) != CURLM_OK {
                    return HopResult(code: CURLE_FAILED_INIT.rawValue, message: "libcurl could not start the transfer")
                }
                while !finished && !cancel.isCancelled {
                    var running: Int32 = 0
                    let performed = curl_multi_perform(multi, &running)
                    if performed != CURLM_OK {
                        code = CURLE_FAILED_INIT
                        errors.baseAddress.map { _ = strncpy($0, curl_multi_strerror(performed), Int(CURL_ERROR_SIZE) - 1) }
                        break
                    }
                    var queued: Int32 = 0
                    while let message = curl_multi_info_read(multi, &queued) {
                        if message.pointee.msg == CURLMSG_DONE, message.pointee.easy_handle == easy {
                            code = bookrule_curl_msg_result(message)
                            finished = true
                        }
                    }
                    if finished || running == 0 { break }
                    if cancel.isCancelled { break }
                    let polled = curl_multi_poll(multi, nil, 0, 1000, nil)
                    if polled != CURLM_OK {
                        code = CURLE_RECV_ERROR
                        errors.baseAddress.map { _ = strncpy($0, curl_multi_strerror(polled), Int(CURL_ERROR_SIZE) - 1) }
                        break
                    }
                }
                var result = HopResult()
                var status = 0
                if finished && code == CURLE_OK {
                    _ = bookrule_curl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
                }
                if transfer.stoppedBySink { status = transfer.status }
                curl_multi_remove_handle(multi, easy)
                if !finished && code == CURLE_OK && !cancel.isCancelled {
                    code = CURLE_RECV_ERROR
                }
                result.code = code.rawValue
                result.status = status
                result.cancelled = cancel.isCancelled
                result.bodyTooLarge = transfer.bodyTooLarge
                result.streamed = transfer.streaming
                result.delivered = transfer.delivered
                result.stoppedBySink = transfer.stoppedBySink
                result.headers = transfer.headers
                result.bodyCapacity = transfer.body.capacity
                result.body = transfer.body
                let text = String(cString: errors.baseAddress!)
                result.message = text.isEmpty ? String(cString: curl_easy_strerror(code)) : text
                // Forget the error buffer, header list and callback context before they go out of scope.
                curl_easy_reset(easy)
                return result
            }
        }
    }

    // MARK: - Handles

    private func checkOutHandle(for url: String) throws -> CurlHandle {
        if let handle = idleHandles.withLock({ $0.popLast() }) { return handle }
        guard let handle = CurlHandle(share: share) else {
            throw HTTPTransportError.connectionFailed(url: url, message: "libcurl could not be initialised")
        }
        return handle
    }

    private func checkIn(_ handle: CurlHandle) {
        idleHandles.withLock { handles in
            if handles.count < Self.maximumIdleHandles { handles.append(handle) }
        }
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

// MARK: - libcurl plumbing

/// One libcurl easy handle with the multi handle it runs in (which keeps its connections), used by one transfer
/// at a time. Its DNS answers and TLS sessions live in the transport's `CurlShare`, which it keeps alive until
/// it is cleaned up itself.
final class CurlHandle: @unchecked Sendable {
    let easy: UnsafeMutableRawPointer
    let multi: UnsafeMutableRawPointer
    let share: CurlShare?

    static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_SSL | CURL_GLOBAL_WIN32))

    init?(share: CurlShare?) {
        guard Self.globalInit == CURLE_OK else { return nil }
        self.share = share
        guard let easy = curl_easy_init() else { return nil }
        guard let multi = curl_multi_init() else {
            curl_easy_cleanup(easy)
            return nil
        }
        self.easy = easy
        self.multi = multi
    }

    deinit {
        curl_multi_cleanup(multi)
        curl_easy_cleanup(easy)
    }
}

/// The cancellation flag of one `send`, set from the task's cancellation handler and read by the transfer thread.
final class CancelState: Sendable {
    private let flag = Atomic<Bool>(false)
    private let handle: CurlHandle

    init(handle: CurlHandle) {
        self.handle = handle
    }

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag and wakes the transfer thread if it is waiting for the network.
    func cancel() {
        flag.store(true, ordering: .releasing)
        curl_multi_wakeup(handle.multi)
    }
}

/// The state of one transfer as libcurl's callbacks fill it in, on the transfer thread only.
final class Transfer {
    let limit: Int
    let expectsBody: Bool
    let cancel: CancelState
    let url: String
    let sink: (any HTTPBodySink)?
    var headers: [HTTPHeader] = []
    var body: [UInt8] = []
    var status = 0
    var bodyTooLarge = false
    /// The current response goes to the sink (a final response of a `stream`), not into `body`.
    var streaming = false
    /// Body bytes the sink accepted.
    var delivered = 0
    /// The sink returned false.
    var stoppedBySink = false

    init(limit: Int, expectsBody: Bool, cancel: CancelState, url: String, sink: (any HTTPBodySink)?) {
        self.limit = limit
        self.expectsBody = expectsBody
        self.cancel = cancel
        self.url = url
        self.sink = sink
    }

    /// Adds body bytes (or passes them to the sink); false (abort) when the cap would be exceeded, the sink
    /// stopped or the task was cancelled.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if cancel.isCancelled { return false }
        if streaming, let sink {
            guard sink.receiveBody(bytes) else {
                stoppedBySink = true
                return false
            }
            delivered += bytes.count
            return true
        }
        let needed = body.count + bytes.count
        if needed > limit {
            bodyTooLarge = true
            return false
        }
        if body.capacity < needed {
            body.reserveCapacity(min(limit, max(needed, body.capacity * 2)))
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Handles one header line (status line, field, continuation or the blank line ending the block); false
    /// aborts the transfer because the announced body is larger than the cap.
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var line = Self.decode(bytes)
        while line.hasSuffix("\n") || line.hasSuffix("\r") || line.hasSuffix("\r\n") { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            headers = []
            body = []
            streaming = false
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            return true
        }
        if line.isEmpty {
            let redirect = [301, 302, 303, 307, 308].contains(status) && headers.value(for: "Location") != nil
            if status >= 200, let sink, !redirect {
                streaming = true
                guard sink.receiveHead(HTTPResponseHead(url: url, status: status, headers: headers)) else {
                    stoppedBySink = true
                    return false
                }
                return true
            }
            guard expectsBody, status >= 200, status != 204, status != 304 else { return true }
            if let length = headers.value(for: "Content-Length").flatMap({ Int($0.trimmingASCIIWhitespace()) }) {
                if length > limit {
                    bodyTooLarge = true
                    return false
                }
                if length > 0 { body.reserveCapacity(length) }
            }
            return true
        }
        if let first = line.first, first == " " || first == "\t", !headers.isEmpty {
            headers[headers.count - 1].value += " " + line.trimmingASCIIWhitespace()
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        headers.append(HTTPHeader(String(line[..<colon]), line[line.index(after: colon)...].trimmingASCIIWhitespace()))
        return true
    }

    /// Header bytes as UTF-8, or as ISO-8859-1 when they are not valid UTF-8.
    private static func decode(_ bytes: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }
}

private func transferFrom(_ userdata: UnsafeMutableRawPointer?) -> Transfer {
    Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
}

private let curlWrite: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    guard length > 0 else { return 0 }
    let accepted = transferFrom(userdata).receive(UnsafeRawBufferPointer(start: data, count: length))
    return accepted ? length : 0
}

private let curlHeader: curl_write_callback = { data, size, count, userdata in
    let length = size * count
    let accepted = transferFrom(userdata).receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
    return accepted ? length : 0
}

private let curlProgress: curl_xferinfo_callback = { userdata, _, _, _, _ in
    transferFrom(userdata).cancel.isCancelled ? 1 : 0
}
