import BookRuleHTTPServer

/// Why one request is refused, as the HTTP status it becomes and a sentence saying why.
package enum StudioRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// 400: the request is malformed (bad JSON, a missing member).
    case badRequest(String)
    /// 403: no token, a foreign Host, a path outside the allowed files.
    case forbidden(String)
    /// 404: nothing there.
    case notFound(String)
    /// 405: the route exists for another method (a change asked for with GET).
    case wrongMethod(allowed: String)
    /// 409: the request cannot be done in the studio's state (no source file to save to).
    case conflict(String)
    /// 413: the body is over the server's limit.
    case tooLarge
    /// 503: the work did not finish within its time limit.
    case timedOut(String)
    /// 503: the work stopped because nobody waits for it any more (the client went away, a newer request
    /// superseded it).
    case abandoned(String)

    /// The HTTP status.
    package var status: Int {
        switch self {
        case .badRequest: return 400
        case .forbidden: return 403
        case .notFound: return 404
        case .wrongMethod: return 405
        case .conflict: return 409
        case .tooLarge: return 413
        case .timedOut, .abandoned: return 503
        }
    }

    package var description: String {
        switch self {
        case .badRequest(let reason), .forbidden(let reason), .notFound(let reason), .conflict(let reason),
             .timedOut(let reason), .abandoned(let reason):
            return reason
        case .wrongMethod(let allowed): return "use \(allowed) for this (a GET never changes anything)"
        case .tooLarge: return "the request body is too large"
        }
    }

    /// The refusal as a response (JSON, so the page can show it at the right place).
    package var response: HTTPServerResponse {
        var response = HTTPServerResponse.json(["error": description], status: status)
        if case .wrongMethod(let allowed) = self { response.headers.append(("Allow", allowed)) }
        return response
    }
}
