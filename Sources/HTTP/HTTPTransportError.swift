/// Why a transport produced no response at all (an HTTP error status is a response, not one of these).
public enum HTTPTransportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The URL could not be turned into one a client can send; `reason` says what is wrong with it.
    case invalidURL(url: String, reason: String)
    /// The URL (or a redirect target) is not http or https; bookrule never reads `file:` or other schemes.
    case unsupportedScheme(url: String)
    /// The connection failed after it was made or while it was set up (TLS, reset, a reply that is not HTTP);
    /// `message` is the underlying client's explanation.
    case connectionFailed(url: String, message: String)
    /// No connection could be made to the host at all: it refused the connection, or there is no route to it.
    /// `message` is the underlying client's explanation. Retried like any connection error, unless the
    /// fetcher gives up on unreachable hosts (`PolitenessPolicy.givesUpOnUnreachableHosts`).
    case couldNotConnect(url: String, message: String)
    /// The connection was not made within the connect limit of `seconds` seconds (`CurlTransport`'s
    /// `connectTimeout`): the host does not answer at all.
    case connectTimedOut(url: String, seconds: Double)
    /// The host's name did not resolve: a typo or a site gone, not a passing fault, so it is not retried.
    case nameNotResolved(url: String, host: String)
    /// The server did not answer in time: the overall deadline of `seconds` seconds passed, or the connect
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
    /// The connection reached `destination` (address:port), a port of this machine that a server in this process
    /// keeps for itself (`ReservedLocalPorts`); nothing was sent, and it is not retried.
    case reservedDestination(url: String, destination: String)

    /// What went wrong and what to try.
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason):
            return "invalid URL \"\(url)\": \(reason)"
        case .unsupportedScheme(let url):
            return "refusing to fetch \(url): only http and https URLs are supported"
        case .nameNotResolved(let url, let host):
            return "\(url): the host name \(host) does not resolve (no such host, or no DNS); not retried"
        case .connectionFailed(let url, let message):
            return "could not fetch \(url): \(message) (check the address and the network connection)"
        case .couldNotConnect(let url, let message):
            return "could not connect for \(url): \(message) (the site is down or refuses connections; "
                + "check the address and the network connection)"
        case .connectTimedOut(let url, let seconds):
            return "no connection to the host of \(url) within \(Self.format(seconds)) s "
                + "(the site is down or unreachable; try again later or raise the connect timeout)"
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
        case .reservedDestination(let url, let destination):
            return "refusing to fetch \(url): it reaches \(destination), the port of this process's own server "
                + "(a source may not call it); not retried"
        }
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
