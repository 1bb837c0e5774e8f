import BookRuleLocking
import CCurl
import Foundation
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
    /// The User-Agent sent when a request carries none and nothing (such as the polite fetcher) chose one:
    /// the first of the current browser strings, never libcurl's own.
    public static let defaultUserAgent = UserAgentPool.currentBrowsers.agent(at: 0)

    /// The settings every request of this transport uses.
    public let configuration: Configuration

    private let idleHandles = Locked<[CurlHandle]>([])
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

    let statistics = Locked(Statistics())

    /// Ports of this machine no request may reach (the process's own servers); nil: any.
    public let reservedPorts: ReservedLocalPorts?

    /// Creates a transport; libcurl is initialised on first use. No request reaches a port of this machine that
    /// `reservedPorts` holds (checked on the address connected to; the request fails with `reservedDestination`).
    public init(configuration: Configuration = Configuration(), reservedPorts: ReservedLocalPorts? = nil) {
        self.configuration = configuration
        self.reservedPorts = reservedPorts
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
            prepared.reservedPorts = reservedPorts
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
}
