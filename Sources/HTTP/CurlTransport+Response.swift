import CCurl
import Foundation
import BookRuleDocument

// The response: a transfer's result as an `HTTPResponse`, or the error a user can act on.
extension CurlTransport {
    func mapResult(_ result: HopResult, hop: Hop) throws -> HTTPResponse {
        if result.cancelled { throw CancellationError() }
        if result.stoppedBySink {
            return HTTPResponse(url: hop.url, status: result.status, headers: result.headers)
        }
        if let refused = result.refusedDestination {
            throw HTTPTransportError.reservedDestination(url: hop.url, destination: refused)
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
            if connectPhase && !hop.connectTimeoutClipped {
                throw HTTPTransportError.connectTimedOut(url: hop.url, seconds: Self.seconds(configuration.connectTimeout))
            }
            throw HTTPTransportError.timedOut(url: hop.url, seconds: Self.seconds(configuration.totalTimeout))
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
        if code == CURLE_COULDNT_RESOLVE_HOST {
            throw HTTPTransportError.nameNotResolved(url: hop.url, host: URLOrigin(hop.url)?.host ?? hop.url)
        }
        // Refused, no route, or the kernel's own connect timeout: nothing reached the server.
        if code == CURLE_COULDNT_CONNECT {
            throw HTTPTransportError.couldNotConnect(url: hop.url, message: message)
        }
        throw HTTPTransportError.connectionFailed(url: hop.url, message: message)
    }
}
