import BookRuleDocument
import BookRuleHTTP
import BookRuleJSON
import BookRuleLocking
import BookRuleRegex
import Foundation

/// One page in the browser, from a fresh browser context to its disposal: every request it makes is paused
/// (`Fetch.enable`, every URL, at the request stage) and fulfilled with the answer of the caller's transport.
///
/// Legado's order (BackstageWebView): load; once loaded, evaluate `webJs` (default the page's `outerHTML`),
/// again every second while it gives nothing, up to a number of tries; `sourceRegex` and `overrideUrlRegex`
/// end the page at the first matching sub-resource or navigation. Instead of Legado's fixed second after the
/// load, `webJs` waits for the page to go quiet (no request outstanding for `settleSeconds`), then
/// `webViewDelayTime`.
struct PageSession {
    let pipe: DevToolsPipe
    let page: WebViewPage
    let transport: any HTTPTransport
    let limits: BrowserLimits
    /// Called when the browser does not close the page in time: the caller ends the browser.
    let stuck: @Sendable () -> Void

    /// What the page's events changed, read by the waits below.
    private final class Progress: Sendable {
        struct State {
            var loaded = false
            var failure: String?
            var inFlight = 0
            var lastActivity = ContinuousClock.now
            var matched: String?
            var requested: [String] = []
            var documents = 0
            var stage = "loading"
            /// The status the page's own document was answered with.
            var documentStatus: Int?
            var session: String?
            /// Answers fetched before the browser asked (a POST page; the target of a redirect).
            var prefetched: [String: HTTPResponse] = [:]
            /// The URLs the browser was redirected to: their answers are given as they are, whatever URL the
            /// transport reports, so a URL spelled differently cannot redirect the page forever.
            var redirectTargets: Set<String> = []
            /// The page's main frame (its target's id), to tell its navigations from a frame's.
            var mainFrame: String?
            /// Navigations of the main frame asked for, and the status of the last one answered (a challenge
            /// page reloads itself: its first answer is the challenge, the next the page).
            var mainDocuments = 0
            var mainDocumentStatus: Int?
            /// What a verification page still showed at its last look (nil: nothing, or not looked at yet).
            var pendingShows: String?
        }
        let state = Locked(State())
    }

    func run() async throws -> RenderedPage {
        let sourcePattern = try page.sourceRegex.map { try pattern($0, field: "sourceRegex") }
        let overridePattern = try page.overrideURLRegex.map { try pattern($0, field: "overrideUrlRegex") }
        let progress = Progress()
        let context = try await pipe.call("Target.createBrowserContext", [("disposeOnDetach", .bool(true))])
        guard let contextID = context["browserContextId"]?.value.stringValue else {
            throw BrowserError.protocolError(method: "Target.createBrowserContext", message: "no browserContextId")
        }
        do {
            let result = try await withDeadline(progress) {
                try await render(contextID: contextID, progress: progress, sourcePattern: sourcePattern,
                                 overridePattern: overridePattern)
            }
            await dispose(contextID, progress)
            return result
        } catch {
            await dispose(contextID, progress)
            throw error
        }
    }

    private func render(contextID: String, progress: Progress, sourcePattern: RegexPattern?,
                        overridePattern: RegexPattern?) async throws -> RenderedPage {
        _ = try await pipe.call("Browser.setDownloadBehavior", [("behavior", .string("deny")), ("browserContextId", .string(contextID))])
        if !page.cookies.isEmpty {
            let cookies = page.cookies.compactMap { pair -> JSONValue? in
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { return nil }
                return DevToolsPipe.object([("name", .string(parts[0])), ("value", .string(parts[1])), ("url", .string(page.request.url))])
            }
            _ = try await pipe.call("Storage.setCookies", [("cookies", DevToolsPipe.array(cookies)),
                                                            ("browserContextId", .string(contextID))])
        }
        let target = try await pipe.call("Target.createTarget", [("url", .string("about:blank")), ("browserContextId", .string(contextID))])
        guard let targetID = target["targetId"]?.value.stringValue else {
            throw BrowserError.protocolError(method: "Target.createTarget", message: "no targetId")
        }
        progress.state.withLock { $0.mainFrame = targetID }
        let attached = try await pipe.call("Target.attachToTarget", [("targetId", .string(targetID)), ("flatten", .bool(true))])
        guard let session = attached["sessionId"]?.value.stringValue else {
            throw BrowserError.protocolError(method: "Target.attachToTarget", message: "no sessionId")
        }
        progress.state.withLock { $0.session = session }
        pipe.setHandler({ method, params in
            handle(method, params, session: session, progress: progress, sourcePattern: sourcePattern,
                   overridePattern: overridePattern)
        }, for: session)
        defer { pipe.setHandler(nil, for: session) }
        _ = try await pipe.call("Page.enable", session: session)
        _ = try await pipe.call("Fetch.enable", [("patterns", DevToolsPipe.array([
            DevToolsPipe.object([("urlPattern", .string("*")), ("requestStage", .string("Request"))]),
        ]))], session: session)

        let url = page.request.url
        if let html = page.html {
            let response = HTTPResponse(url: url, status: 200, headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")],
                                        body: Array(html.utf8))
            progress.state.withLock { $0.prefetched[url] = response }
        } else if page.request.method != "GET" {
            // Legado fetches a POST page first and loads its answer with the URL as the base.
            let response = try await transport.send(page.request)
            progress.state.withLock { $0.prefetched[url] = response }
        }
        let navigation = try await pipe.call("Page.navigate", [("url", .string(url))], session: session)
        if let error = navigation["errorText"]?.value.stringValue, !error.isEmpty {
            throw BrowserError.navigationFailed(url: url, reason: error)
        }
        try await waitUntil(progress) { $0.loaded || $0.matched != nil || $0.failure != nil }
        if let failure = progress.state.withLock({ $0.failure }) { throw BrowserError.navigationFailed(url: url, reason: failure) }
        if let verification = page.verification {
            let content = try await awaitVerification(verification, session: session, progress: progress)
            return try await finished(content: content, url: url, contextID: contextID, session: session, progress: progress)
        }

        progress.state.withLock { $0.stage = "waiting for the page's requests" }
        let settle = Duration.seconds(limits.settleSeconds)
        // Quiet on the network is not yet quiet in the page: its script may still be handling the last answer.
        // A round trip through the renderer's task queue follows, and the wait starts again if that brought
        // new requests (the list built, its pictures asked for).
        while true {
            try await waitUntil(progress) { $0.matched != nil || ($0.inFlight == 0 && ContinuousClock.now - $0.lastActivity >= settle) }
            let mark = progress.state.withLock { $0.lastActivity }
            _ = try? await evaluate("new Promise(done => setTimeout(done, 0))", session: session)
            if progress.state.withLock({ $0.matched != nil || ($0.lastActivity == mark && $0.inFlight == 0) }) { break }
        }
        if page.delaySeconds > 0, progress.state.withLock({ $0.matched == nil }) {
            progress.state.withLock { $0.stage = "webViewDelayTime" }
            try await Task.sleep(for: .seconds(page.delaySeconds))
        }
        var content = progress.state.withLock { $0.matched }
        if content == nil, sourcePattern == nil, overridePattern == nil || page.script != nil {
            content = try await evaluateUntilNonEmpty(session: session, progress: progress)
        } else if content == nil {
            // Sniffing: the page's own script is run (Legado loads it as `javascript:`), then the match awaited.
            if let script = page.script { _ = try? await evaluate(script, session: session) }
            progress.state.withLock { $0.stage = "waiting for a URL matching sourceRegex/overrideUrlRegex" }
            try await waitUntil(progress) { $0.matched != nil }
            content = progress.state.withLock { $0.matched }
        }
        return try await finished(content: content ?? "", url: url, contextID: contextID, session: session, progress: progress)
    }

    /// The rendered page: `content`, at the URL the page ended on, with the cookies its context holds.
    private func finished(content: String, url: String, contextID: String, session: String,
                          progress: Progress) async throws -> RenderedPage {
        let finalURL = (try? await evaluate("location.href", session: session)).flatMap { $0.isEmpty ? nil : $0 } ?? url
        let cookies = try await pipe.call("Storage.getCookies", [("browserContextId", .string(contextID))])
        let status = progress.state.withLock { state in
            page.verification != nil ? state.mainDocumentStatus ?? state.documentStatus : state.documentStatus
        }
        return RenderedPage(url: finalURL, status: status ?? 200, content: content,
                            cookies: Self.setCookieHeaders(cookies, pageURL: finalURL),
                            requested: progress.state.withLock { $0.requested })
    }

    /// Waits until a verification page let the browser through: finished loading, no longer showing what
    /// `verification.pending` names (a challenge, a captcha), and put (no navigation, no request) for
    /// `quietSeconds`. A challenge that computes a token, sets a cookie and reloads passes here; a page that
    /// still waits at the page's time limit is reported by `withDeadline` as needing a person.
    /// - Returns: the page's `outerHTML`.
    private func awaitVerification(_ verification: PageVerification, session: String, progress: Progress) async throws -> String {
        let settle = Duration.seconds(limits.settleSeconds)
        let quiet = Duration.seconds(verification.quietSeconds)
        progress.state.withLock { $0.stage = "waiting for the verification page to load" }
        var passed: (documents: Int, href: String, since: ContinuousClock.Instant)?
        while true {
            try await waitUntil(progress) { $0.inFlight == 0 && ContinuousClock.now - $0.lastActivity >= settle }
            let documents = progress.state.withLock { $0.mainDocuments }
            // A navigation under way destroys the context the evaluation runs in: that look counts as a change.
            let look = try? await evaluate("JSON.stringify([document.readyState, location.href, document.documentElement.outerHTML])",
                                           session: session)
            let fields = look.flatMap { try? JSONParser.parse($0) }?.value.arrayValue?.compactMap { $0.value.stringValue } ?? []
            if fields.count == 3, fields[0] == "complete" {
                let (href, html) = (fields[1], fields[2])
                let status = progress.state.withLock { $0.mainDocumentStatus ?? $0.documentStatus } ?? 200
                if let shows = verification.pending(html, status) {
                    progress.state.withLock { state in
                        state.pendingShows = shows
                        state.stage = "waiting for the verification page to pass; it still shows \(shows)"
                    }
                    passed = nil
                } else {
                    progress.state.withLock { state in
                        state.pendingShows = nil
                        state.stage = "waiting for the verified page to stop changing"
                    }
                    if let previous = passed, previous.documents == documents, previous.href == href {
                        let calm = progress.state.withLock { $0.inFlight == 0 && $0.mainDocuments == documents }
                        if calm, ContinuousClock.now - previous.since >= quiet { return html }
                    } else {
                        passed = (documents, href, ContinuousClock.now)
                    }
                }
            } else {
                passed = nil
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// `webJs` (or `outerHTML`) until it gives something, a second apart, up to `limits.scriptTries` times.
    private func evaluateUntilNonEmpty(session: String, progress: Progress) async throws -> String {
        let script = page.script ?? "document.documentElement.outerHTML"
        for attempt in 1...max(1, limits.scriptTries) {
            progress.state.withLock { $0.stage = "webJs, try \(attempt)" }
            let value = try await evaluate(script, session: session)
            if !value.isEmpty && value != "null" { return value }
            if attempt < limits.scriptTries { try await Task.sleep(for: .seconds(1)) }
        }
        throw BrowserError.emptyResult(url: page.request.url, tries: limits.scriptTries)
    }

    /// Evaluates `script` in the page; a string result as it is, anything else as JSON text.
    private func evaluate(_ script: String, session: String) async throws -> String {
        let result = try await pipe.call("Runtime.evaluate", [
            ("expression", .string(script)), ("returnByValue", .bool(true)), ("awaitPromise", .bool(true)),
        ], session: session)
        if let details = result["exceptionDetails"]?.value.objectValue {
            let message = details["exception"]?.value.objectValue?["description"]?.value.stringValue
                ?? details["text"]?.value.stringValue ?? "an exception"
            throw BrowserError.scriptFailed(url: page.request.url, message: message)
        }
        guard let value = result["result"]?.value.objectValue?["value"]?.value else { return "" }
        switch value {
        case .string(let text): return text
        case .null: return ""
        default: return value.serialized()
        }
    }

    // MARK: - Events

    private func handle(_ method: String, _ params: JSONObject, session: String, progress: Progress,
                        sourcePattern: RegexPattern?, overridePattern: RegexPattern?) {
        switch method {
        case "Page.loadEventFired":
            // Only once the page's own document was asked for: a load before that is the blank page's.
            progress.state.withLock { state in
                if state.documents > 0 { state.loaded = true }
            }
        case "Fetch.requestPaused":
            guard let requestID = params["requestId"]?.value.stringValue,
                  let request = params["request"]?.value.objectValue,
                  let url = request["url"]?.value.stringValue else { return }
            let isDocument = params["resourceType"]?.value.stringValue == "Document"
            let frame = params["frameId"]?.value.stringValue
            let (matched, first, mainDocument) = progress.state.withLock { state -> (Bool, Bool, Bool) in
                state.requested.append(url)
                state.lastActivity = ContinuousClock.now
                let first = isDocument && state.documents == 0
                if isDocument { state.documents += 1 }
                let mainDocument = isDocument && (frame == nil || state.mainFrame == nil || frame == state.mainFrame)
                if mainDocument { state.mainDocuments += 1 }
                if state.matched == nil {
                    if let sourcePattern, (try? sourcePattern.matches(url)) == true, !first {
                        state.matched = url
                    } else if let overridePattern, isDocument, !first, (try? overridePattern.matches(url)) == true {
                        state.matched = url
                    }
                }
                return (state.matched == url, first, mainDocument)
            }
            if matched || !URLReference.isHTTP(url) {
                // A matched media URL is the answer, not something to download; anything not http(s) is refused.
                pipe.send("Fetch.failRequest", [("requestId", .string(requestID)), ("errorReason", .string("BlockedByClient"))],
                          session: session)
                return
            }
            progress.state.withLock { $0.inFlight += 1 }
            let outgoing = Self.request(from: request, url: url)
            Task {
                await fulfil(requestID, outgoing, session: session, progress: progress, failOnError: first,
                             mainDocument: mainDocument)
            }
        default:
            break
        }
    }

    /// Answers one paused request through the transport: the status, headers and body as they came, or a
    /// redirect to the final URL when the transport followed one (its answer kept for the browser's next ask).
    private func fulfil(_ requestID: String, _ request: HTTPRequest, session: String, progress: Progress, failOnError: Bool,
                        mainDocument: Bool) async {
        defer {
            progress.state.withLock { state in
                state.inFlight -= 1
                state.lastActivity = ContinuousClock.now
            }
        }
        let response: HTTPResponse
        do {
            if let kept = progress.state.withLock({ $0.prefetched.removeValue(forKey: request.url) }) {
                response = kept
            } else {
                response = try await transport.send(request)
            }
        } catch {
            if failOnError { progress.state.withLock { $0.failure = "\(error)" } }
            pipe.send("Fetch.failRequest", [("requestId", .string(requestID)), ("errorReason", .string("Failed"))], session: session)
            return
        }
        let redirect = progress.state.withLock { state -> Bool in
            guard response.url != request.url, URLReference.isHTTP(response.url), !state.redirectTargets.contains(request.url) else {
                return false
            }
            state.prefetched[response.url] = response
            state.redirectTargets.insert(response.url)
            return true
        }
        if redirect {
            if failOnError { progress.state.withLock { $0.documentStatus = 302 } }
            pipe.send("Fetch.fulfillRequest", [
                ("requestId", .string(requestID)), ("responseCode", .number("302")),
                ("responseHeaders", DevToolsPipe.array([Self.header("Location", response.url)])),
            ], session: session)
            return
        }
        if failOnError || redirectTargetOfDocument(request.url, progress) {
            progress.state.withLock { $0.documentStatus = response.status }
        }
        if mainDocument { progress.state.withLock { $0.mainDocumentStatus = response.status } }
        // The transport already decoded the body and measured it: its encoding and length no longer apply.
        let dropped: Set<String> = ["content-encoding", "content-length", "transfer-encoding"]
        let headers = response.headers.filter { !dropped.contains($0.name.lowercased()) }.map { Self.header($0.name, $0.value) }
        pipe.send("Fetch.fulfillRequest", [
            ("requestId", .string(requestID)), ("responseCode", .number(String(response.status))),
            ("responseHeaders", DevToolsPipe.array(headers)),
            ("body", .string(Data(response.body).base64EncodedString())),
        ], session: session)
    }

    /// Whether `url` is where the page's document was redirected to (so its answer is the document's).
    private func redirectTargetOfDocument(_ url: String, _ progress: Progress) -> Bool {
        progress.state.withLock { $0.redirectTargets.contains(url) && $0.documentStatus == 302 }
    }

    /// The browser's request as bookrule sends it: its method, body and headers, but not the browser's own
    /// User-Agent (and client hints), so the polite fetcher's User-Agent goes out.
    static func request(from request: JSONObject, url: String) -> HTTPRequest {
        let method = request["method"]?.value.stringValue ?? "GET"
        var headers: [HTTPHeader] = []
        for member in request["headers"]?.value.objectValue?.members ?? [] {
            let name = member.key.lowercased()
            if name == "user-agent" || name.hasPrefix("sec-ch-ua") { continue }
            if let value = member.value.value.stringValue { headers.append(HTTPHeader(member.key, value)) }
        }
        var body: [UInt8]?
        if let entries = request["postDataEntries"]?.value.arrayValue {
            body = entries.flatMap { entry -> [UInt8] in
                guard let text = entry.value.objectValue?["bytes"]?.value.stringValue, let data = Data(base64Encoded: text) else { return [] }
                return Array(data)
            }
        } else if let text = request["postData"]?.value.stringValue {
            body = Array(text.utf8)
        }
        return HTTPRequest(url: url, method: method, headers: headers, body: body)
    }

    /// The cookies the browser context holds for the page's host, as `Set-Cookie` values the source's cookie
    /// store reads (`CookieStore.keep`).
    static func setCookieHeaders(_ result: JSONObject, pageURL: String) -> [HTTPHeader] {
        let host = URLOrigin(pageURL)?.host.lowercased() ?? ""
        var headers: [HTTPHeader] = []
        for node in result["cookies"]?.value.arrayValue ?? [] {
            guard let cookie = node.value.objectValue, let name = cookie["name"]?.value.stringValue,
                  let value = cookie["value"]?.value.stringValue, let domain = cookie["domain"]?.value.stringValue else { continue }
            let bare = domain.hasPrefix(".") ? String(domain.dropFirst()) : domain
            guard host == bare.lowercased() || host.hasSuffix("." + bare.lowercased()) else { continue }
            var text = "\(name)=\(value); Path=\(cookie["path"]?.value.stringValue ?? "/")"
            if domain.hasPrefix(".") { text += "; Domain=\(bare)" }
            if cookie["secure"]?.value.boolValue == true { text += "; Secure" }
            if cookie["httpOnly"]?.value.boolValue == true { text += "; HttpOnly" }
            if let expires = cookie["expires"]?.value.doubleValue, expires > 0, cookie["session"]?.value.boolValue != true {
                text += "; Max-Age=\(max(0, Int(expires - Date().timeIntervalSince1970)))"
            }
            headers.append(HTTPHeader("Set-Cookie", text))
        }
        return headers
    }

    private static func header(_ name: String, _ value: String) -> JSONValue {
        DevToolsPipe.object([("name", .string(name)), ("value", .string(value))])
    }

    // MARK: - Waiting and limits

    private func pattern(_ text: String, field: String) throws(BrowserError) -> RegexPattern {
        do {
            return try RegexPattern("^(?:" + text + ")$")
        } catch {
            throw .badPattern(field: field, pattern: text, reason: "\(error)")
        }
    }

    /// Polls the page's progress (its events arrive on the pipe's thread) until `done`; cancelled by the deadline.
    private func waitUntil(_ progress: Progress, _ done: (Progress.State) -> Bool) async throws {
        while !progress.state.withLock({ done($0) }) {
            if pipe.isClosed { throw BrowserError.browserExited }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Runs `body` within the page's time limit; past it, the page's scripts are terminated and the time limit
    /// reported with the stage the page was in.
    private func withDeadline<T: Sendable>(_ progress: Progress, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let seconds = limits.pageSeconds
        let url = page.request.url
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            if let value = first { return value }
            let (stage, shows) = progress.state.withLock { ($0.stage, $0.pendingShows) }
            if let shows { throw BrowserError.needsPerson(url: url, seconds: seconds, shows: shows) }
            throw BrowserError.timeLimit(url: url, seconds: seconds, stage: stage)
        }
    }

    /// Stops the page's scripts and closes its context and everything in it. A browser that does not manage
    /// that within a few seconds is ended (`stuck`), so the next page gets a new one.
    private func dispose(_ contextID: String, _ progress: Progress) async {
        let pipe = self.pipe
        let session = progress.state.withLock { $0.session }
        let closed = await Self.within(seconds: 5) {
            if let session { _ = try? await pipe.call("Runtime.terminateExecution", session: session) }
            _ = try? await pipe.call("Target.disposeBrowserContext", [("browserContextId", .string(contextID))])
        }
        if !closed { stuck() }
    }

    /// Whether `body` finished within `seconds` (it is cancelled otherwise).
    private static func within(seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }
}
