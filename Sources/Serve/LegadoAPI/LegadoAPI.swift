import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import BookRuleLocking
import Foundation

/// Legado's web API over the library (the routes of Legado's `HttpServer.kt`): what the library on disk answers
/// (a saved chapter, the shelf) on the server's polling threads (`handleQuickly`), the rest on a thread each
/// (`handle`). The gate first (Host; Origin and Sec-Fetch-Site, so no other site's page drives it; the token when there is one), then
/// CORS as Legado answers it (to the server's own origins only), then the route. POST bodies are read as JSON
/// whatever their content type (the client sends progress as a `text/plain` beacon).
package final class LegadoAPI: Sendable {
    /// The data behind the routes.
    package let library: ServeLibrary
    /// The gate every request passes.
    package let gate: RequestGate
    /// The built web client, when `--web` names one.
    let web: WebFiles?
    /// Whether the server is stopping (new requests then get a 503).
    private let stopping = Locked(false)
    /// The requests being answered, which a stopping server waits for.
    let answering = WorkInFlight()

    /// The API over `library`, behind `gate`, with the web client in `web`.
    init(library: ServeLibrary, gate: RequestGate, web: WebFiles?) {
        self.library = library
        self.gate = gate
        self.web = web
    }

    /// Where the web client's reading settings are kept: `web-read-config.json` beside the library.
    var readConfigPath: String { LibraryStore.folder(ofLibraryAt: library.store.path) + "/web-read-config.json" }

    /// From now on requests are answered 503 at once (those being answered finish).
    func beginStopping() {
        stopping.withLock { $0 = true }
    }

    /// Answers a request for a saved chapter, or one the gate refuses, at once, on the server's polling thread;
    /// nil for any other (a chapter not saved yet, anything that may wait on a site, a write or the library's
    /// lock), which `handle` then answers on a thread of its own. Its reads never wait for the main connection
    /// (`LibraryStore.readingWithoutWaiting`): with every read-only connection in use it hands the request on.
    package func handleQuickly(_ request: HTTPServerRequest) -> HTTPServerResponse? {
        answer(request) { request, method in
            guard method == "GET" else { return nil }
            let path = request.path.hasPrefix("/reader3/") ? String(request.path.dropFirst("/reader3".count)) : request.path
            guard path == "/getBookContent" else { return nil }
            let attempt = NoWaitRead()
            let answer = LibraryStore.readingWithoutWaiting(attempt) { () -> HTTPServerResponse? in
                do throws(ServeFailure) {
                    return try savedBookContent(request)
                } catch {
                    return LegadoEnvelope.failure(error.description)
                }
            }
            return attempt.refused ? nil : answer
        }
    }

    /// Answers one request.
    package func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        answer(request) { request, method in route(request, method: method) }
            ?? LegadoEnvelope.failure("no answer", status: 500)
    }

    /// The gate, the 503 while stopping, OPTIONS, the body limit, then `route` (nil: it does not answer this
    /// request), then the headers every answer carries.
    private func answer(_ request: HTTPServerRequest,
                        route: (HTTPServerRequest, String) -> HTTPServerResponse?) -> HTTPServerResponse? {
        // Counted under the same lock as the flag, so a stop that has begun waits for every request let in.
        guard stopping.withLock({ stopping -> Bool in
            if stopping { return false }
            answering.begin()
            return true
        }) else {
            return LegadoEnvelope.failure("bookrule serve is stopping", status: 503)
        }
        defer { answering.end() }
        let method = request.method.uppercased()
        do {
            // The OPDS catalog also takes the token as HTTP Basic authentication, which e-readers send.
            if OPDSCatalog.serves(request.path) {
                if let refusal = OPDSAccess(gate: gate).refusal(of: request) { return refusal }
            } else {
                // Origin on every method: a GET can change something here too (reader's /reader3/ calls).
                try gate.check(request)
            }
        } catch {
            switch error {
            case .badRequest(let reason): return LegadoEnvelope.failure(reason, status: 400)
            case .forbidden(let reason): return LegadoEnvelope.failure(reason, status: 403)
            }
        }
        var response: HTTPServerResponse
        if method == "OPTIONS" {
            response = HTTPServerResponse(status: 200, headers: [("Access-Control-Allow-Methods", "POST"),
                                                                 ("Access-Control-Allow-Headers", "content-type")])
        } else if request.bodyTooLarge {
            response = LegadoEnvelope.failure("the request body is too large", status: 413)
        } else {
            guard let routed = route(request, method) else { return nil }
            response = routed
            if response.header("Content-Type")?.hasPrefix("application/json") == true {
                response.headers.append(("Access-Control-Allow-Methods", "GET, POST"))
            }
        }
        if let origin = request.header("Origin"), gate.allowsOrigin(origin) {
            response.headers.append(("Access-Control-Allow-Origin", origin))
            response.headers.append(("Vary", "Origin"))
        }
        // The first visit with ?token= leaves the cookie every later request (WebSocket too) carries.
        if let given = request.argument("token"), gate.allowsToken(given), let cookie = gate.cookie {
            response.headers.append(("Set-Cookie", cookie))
        }
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        return response
    }

    private func route(_ request: HTTPServerRequest, method: String) -> HTTPServerResponse {
        var path = request.path
        do {
            // reader's clients call the same API under /reader3/, with calls of their own besides.
            if path.hasPrefix("/reader3/") {
                path = String(path.dropFirst("/reader3".count))
                if let answer = try reader3(request, name: String(path.dropFirst())) { return answer }
            }
            if OPDSCatalog.serves(path) { return OPDSCatalog(library: library).answer(request, method: method) }
            switch (method, path) {
            case ("GET", "/getBookshelf"): return try bookshelf()
            case ("GET", "/getChapterList"): return try chapterList(request, refresh: false)
            case ("GET", "/refreshToc"): return try chapterList(request, refresh: true)
            case ("GET", "/getBookContent"): return try bookContent(request)
            case ("GET", "/cover"): return try cover(request)
            case ("GET", "/image"): return try image(request)
            case ("GET", "/getReadConfig"): return try readConfig()
            case ("GET", "/getBookSource"): return try bookSource(request)
            case ("GET", "/getBookSources"): return try bookSources()
            case ("GET", "/getRssSource"): return try rssSource(request)
            case ("GET", "/getRssSources"): return try rssSources()
            case ("GET", "/getReplaceRules"): return try replaceRules()
            case ("POST", "/saveBook"): return try saveBook(request)
            case ("POST", "/deleteBook"): return try deleteBook(request)
            case ("POST", "/saveBookProgress"): return try saveProgress(request)
            case ("POST", "/saveReadConfig"): return try saveReadConfig(request)
            case ("POST", "/saveBookSource"): return try saveBookSource(request)
            case ("POST", "/saveBookSources"): return try saveBookSources(request)
            case ("POST", "/deleteBookSources"): return try deleteBookSources(request)
            case ("POST", "/saveRssSource"): return try saveRssSource(request)
            case ("POST", "/saveRssSources"): return try saveRssSources(request)
            case ("POST", "/deleteRssSources"): return try deleteRssSources(request)
            case ("POST", "/saveReplaceRule"): return try saveReplaceRule(request)
            case ("POST", "/deleteReplaceRule"): return try deleteReplaceRule(request)
            case ("POST", "/testReplaceRule"): return try testReplaceRule(request)
            case ("GET", _), ("HEAD", _): return page(path)
            default: return LegadoEnvelope.failure("no such API: \(method) \(path)", status: 404)
            }
        } catch {
            return LegadoEnvelope.failure(error.description)
        }
    }

    /// The web client's files (`/vue/…`), `/` leading to its index.
    private func page(_ path: String) -> HTTPServerResponse {
        guard let web else { return .text(404, "not found (bookrule serve was started without --web)") }
        if path == "/" || path == "/vue" {
            return HTTPServerResponse(status: 302, headers: [("Location", "/vue/index.html")])
        }
        guard path.hasPrefix("/vue/") else { return .text(404, "not found") }
        return web.response(for: String(path.dropFirst("/vue/".count)))
    }

    /// A query argument that must be there.
    func argument(_ request: HTTPServerRequest, _ name: String, _ missing: String) throws(ServeFailure) -> String {
        guard let value = request.argument(name), !value.isEmpty else { throw ServeFailure(missing) }
        return value
    }

    /// The POST body as Legado's server hands it to its controllers (NanoHTTPD's `postData`): trimmed of spaces
    /// and control characters at both ends, as Java's `trim`; nil when nothing is left.
    func postData(_ request: HTTPServerRequest) -> ArraySlice<UInt8>? {
        let body = request.body[...]
        guard let start = body.firstIndex(where: { $0 > 0x20 }), let end = body.lastIndex(where: { $0 > 0x20 }) else {
            return nil
        }
        return body[start...end]
    }

    /// A POST body as JSON (Gson reads leniently, and so does this). Legado's controllers answer an empty body
    /// with `empty` and one Gson cannot read with `invalid` (each its own words); the reason follows in brackets.
    func body(_ request: HTTPServerRequest, empty: String = "格式不对", invalid: String = "格式不对") throws(ServeFailure) -> JSONValue {
        guard let data = postData(request) else { throw ServeFailure("\(empty) (the body is empty)") }
        do {
            return try JSONParser.parse(Array(data), lenient: true).value
        } catch {
            throw ServeFailure("\(invalid) (the body is not JSON: \(error))")
        }
    }

    /// A POST body that must be a JSON object (`empty` and `invalid` as `body` says).
    func objectBody(_ request: HTTPServerRequest, empty: String = "格式不对", invalid: String = "格式不对") throws(ServeFailure) -> JSONObject {
        guard let object = try body(request, empty: empty, invalid: invalid).objectValue else {
            throw ServeFailure("\(invalid) (the body must be a JSON object)")
        }
        return object
    }
}
