import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// What every step shares: fetching a page (through the transport, or rendered in a browser), running a rule
/// on it with tracing, and the notes a page earns (truncation, charset, anti-bot).
extension SourceEngine {
    /// Runs a step of a source with scripts on its runtime's thread (see `ScriptRuntime.stepExecutor`), so its
    /// rules' JavaScript runs without a hand-over per evaluation, with the step's own fetches on a thread of
    /// their own (see `fetchDocument`). Its rules run synchronously, and a script that fetches (`java.ajax`) blocks the thread
    /// evaluating it until the answer comes; on Swift's pool (two threads on a two-core machine) two such
    /// steps could hold every thread while a third task that the fetches wait for (another request to the same
    /// host, in its turn) could not resume. A source without scripts never blocks and stays on the pool.
    func offPoolForScripts<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let scripts else { return try await body() }
        return try await withTaskExecutorPreference(scripts.stepExecutor ?? SerialQueueExecutor.scriptFetch()) { try await body() }
    }

    /// What rules of a step run with: the page's URL, the book's variables, and for a source with scripts the
    /// script runtime bound to the step's `key`, `page`, `book`, `chapter`…
    func ruleEnvironment(_ baseURL: String, variables: RuleVariables = RuleVariables(),
                             bindings: ScriptBindings) throws(EngineError) -> RuleEnvironment {
        RuleEnvironment(baseURL: baseURL, variables: variables, script: try scripts?.scope(bindings))
    }

    /// The headers every request of the source sends: `header`, or what its script computes.
    func requestHeaders(_ bindings: ScriptBindings) throws(EngineError) -> [HTTPHeader] {
        try scripts?.headers(bindings: bindings) ?? source.headers
    }

    /// `java.log` and `toast` messages of the step's scripts, as warnings.
    func noteScriptMessages(_ warnings: inout Warnings) {
        for message in scripts?.host.drainMessages() ?? [] { warnings.add(message) }
    }

    /// A book as scripts see it.
    static func scriptBook(_ book: BookInfo?) -> ScriptBook? {
        guard let book else { return nil }
        return ScriptBook(name: book.name, author: book.author, bookURL: book.url, tocURL: book.tocURL,
                          kind: book.kind, intro: book.intro, coverURL: book.coverURL,
                          latestChapterTitle: book.lastChapter, wordCount: book.wordCount)
    }

    /// Fetches and parses a page, turning statuses and transport failures into `EngineError`s.
    func fetchDocument(_ request: HTTPRequest, charset: String?, webView: (options: WebViewOptions, field: String)? = nil) async throws -> HTMLDocument {
        let clock = ContinuousClock()
        let start = clock.now
        var trace = FetchTrace(url: request.url, finalURL: request.url, method: request.method, status: nil,
                               decoding: nil, bytes: 0, milliseconds: 0, error: nil)
        defer {
            if let tracer {
                let elapsed = clock.now - start
                trace.milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                tracer.record(fetch: trace)
            }
        }
        var response: HTTPResponse
        do {
            if let webView {
                response = try await rendered(request, webView.options, field: webView.field)
            } else if scripts?.stepExecutor != nil {
                // A step of a source with scripts runs on its runtime's thread, which a script's blocking
                // `java.ajax` may hold while it waits for its turn at the host: the request's turn must be
                // given back (in the fetcher's code after the answer) on a thread that is not held, and not
                // on Swift's pool either (see `offPoolForScripts`).
                response = try await withTaskExecutorPreference(SerialQueueExecutor.scriptFetch()) { try await transport.send(request) }
            } else {
                response = try await transport.send(request)
            }
        } catch {
            trace.error = "\(error)"
            throw EngineError.transport(url: request.url, error: error)
        }
        response = try await checkedLogin(response, for: request)
        trace.finalURL = response.url
        trace.status = response.status
        trace.bytes = response.body.count
        guard (200..<300).contains(response.status) else {
            let page = response.body.count < Self.antiBotPageLimit
                ? AntiBotPage.detect(html: String(decoding: response.body, as: UTF8.self), status: response.status) : nil
            let error = page.map { EngineError.blocked(url: response.url, status: response.status, page: $0) }
                ?? EngineError.httpStatus(url: response.url, status: response.status)
            trace.error = error.description
            throw error
        }
        do {
            let document = try await HTMLDocument.parsed(bytes: response.body, url: response.url,
                                                         contentType: response.contentType, charsetOption: charset,
                                                         savedCharset: response.savedCharset)
            trace.decoding = document.charset.description
            return document
        } catch {
            trace.error = error.description
            throw EngineError.document(url: response.url, error: error)
        }
    }

    func nextURLs(_ rule: Rule, in document: HTMLDocument, environment: RuleEnvironment, warnings: inout Warnings) -> [String] {
        let values: [String]
        do {
            values = try rule.strings(in: document.rootContext, environment: environment)
            tracer?.record(rule, values: values)
        } catch {
            tracer?.record(rule, values: [], error: error.description)
            warnings.add(error.description)
            return []
        }
        var result: [String] = []
        for line in values.flatMap({ $0.split(whereSeparator: \.isNewline) }) {
            let trimmed = line.trimmingASCIIWhitespace()
            guard !trimmed.isEmpty, !trimmed.lowercased().hasPrefix("javascript:"),
                  let absolute = URLReference.resolve(trimmed, against: document.baseURL),
                  URLReference.isHTTP(absolute), !result.contains(absolute) else { continue }
            result.append(absolute)
        }
        return result.filter { Self.pageKey($0) != Self.pageKey(document.url) }
    }

    func requireRules(_ section: RuleSection, step: SourceStep) throws {
        try source.requireUsable(for: [step])
        if let list = section.name.fields.first, list.isList, list != .initRule, section[list] == nil {
            throw EngineError.missingRule(field: "\(section.name.rawValue).\(list.rawValue)")
        }
    }

    func absoluteURL(_ url: String, field: String) throws -> String {
        let (address, webView) = Self.splitWebView(url)
        guard let absolute = URLReference.resolve(address, against: source.url), URLReference.isHTTP(absolute) else {
            throw EngineError.invalidURL(field: field, url: url)
        }
        return webView.map { absolute + "," + $0 } ?? absolute
    }

    /// Runs a list rule, reporting it to the tracer and turning its failure into an `EngineError`.
    func elements(_ rule: Rule, in context: RuleContext, environment: RuleEnvironment, url: String,
                          applyingReverse: Bool = true) throws -> [RuleContext] {
        do {
            let result = try rule.elements(in: context, environment: environment, applyingReverse: applyingReverse)
            tracer?.record(list: rule, count: result.count)
            return result
        } catch {
            tracer?.record(list: rule, count: 0, error: error.description)
            throw EngineError.rule(url: url, error: error)
        }
    }

    /// Runs a string rule whose failure fails the step, reporting it to the tracer.
    func traced(_ rule: Rule, url: String, _ body: () throws(RuleError) -> [String]) throws -> [String] {
        try traced(rule, url: url) { () throws(RuleError) in try body().map { RuleText($0, isMarkup: false) } }.map(\.text)
    }

    /// `traced` for a rule's values with their kind (markup or text).
    func traced(_ rule: Rule, url: String, _ body: () throws(RuleError) -> [RuleText]) throws -> [RuleText] {
        do {
            let values = try body()
            tracer?.record(rule, values: values.map(\.text))
            return values
        } catch {
            tracer?.record(rule, values: [], error: error.description)
            throw EngineError.rule(url: url, error: error)
        }
    }

    /// Warns when libxml2 could not read a page to its end, and (see `noteCharset`) when the page's declared
    /// charset was overruled.
    static func noteTruncation(_ document: HTMLDocument, _ warnings: inout Warnings) {
        noteCharset(document, &warnings)
        noteAntiBot(document, &warnings)
        if document.isTruncated {
            warnings.add("\(document.url): the page nests markup more than \(HTMLDocument.maxDepth) levels deep; libxml2 stopped there, so anything after it is missing")
        }
    }

    /// Says when the charset a page declares was not the one used (a page re-saved as UTF-8 that still says
    /// gbk, or an unknown label): the text is right, but the author should know the page lies.
    static func noteCharset(_ document: HTMLDocument, _ warnings: inout Warnings) {
        if let note = document.charset.note {
            warnings.add("\(document.url): decoded as \(document.charset.charset): \(note)")
        } else if document.charset.reason == .fallback {
            warnings.add("\(document.url): declares no charset and is not UTF-8; too short for a confident guess, it was decoded as \(document.charset.charset) (the fallback): if its text is garbled, give the source's URL a charset option (,{\"charset\": \"shift_jis\"})")
        }
        let replacements = document.replacementCharacterCount
        if replacements > 0 {
            warnings.add("\(document.url): \(replacements) byte sequence(s) are not valid \(document.charset.charset) and show as U+FFFD (\u{FFFD}); decoded as \(document.charset)")
        }
    }

    /// Anti-bot pages are small; real TOC pages often are not, and need no look.
    static let antiBotPageLimit = 256 * 1024

    /// Names an anti-bot page answered with 200 (a challenge, a script-redirect stub): the rules will find
    /// nothing on it, and the warning says why instead of "found no chapters".
    static func noteAntiBot(_ document: HTMLDocument, _ warnings: inout Warnings) {
        guard document.sourceByteCount < antiBotPageLimit, document.json == nil,
              let page = AntiBotPage.detect(html: document.sourceText, status: 200) else { return }
        warnings.add("\(document.url): the answer is \(page), not the page the rules expect")
    }

    /// The identity of a page for "visited" checks: the URL without its fragment.
    static func pageKey(_ url: String) -> String {
        URLReference.withoutFragment(url)
    }
}
