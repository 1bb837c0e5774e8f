import BookRuleHTTPServer
import BookRuleCheck
import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON
import Foundation
import Synchronization

/// The studio's routes behind its gate (`StudioAccess`): the page and its files, the evaluation an edit
/// asks for, the site's page re-written for the frame, proposals for a clicked node, the chain's steps,
/// `bookrule test`'s report, and saving. GET routes only read; everything that changes something (the
/// source file, the fixture, the page a step looks at) is a POST.
package final class StudioApp: Sendable {
    /// The gate.
    package let access: StudioAccess
    /// The files requests may touch.
    package let files: StudioFiles
    /// The page's files, in memory.
    package let assets: StudioAssets
    /// Pages per step.
    package let session = StudioSession()
    /// The chain's runner.
    package let chain: StudioChain
    /// Where steps and test runs execute.
    /// The thread the studio's steps and test runs execute on: one serial queue per studio.
    private let executor = SerialQueueExecutor(label: "bookrule.studio.work")
    /// Set when the studio stops, so requests waiting for work give up at once.
    private let stopping = Atomic<Bool>(false)
    /// The number of the latest `/api/evaluate`: an evaluation that is no longer the latest is superseded.
    private let latestEvaluation = Atomic<Int>(0)
    /// Evaluations running now (what a test watches to see an abandoned one stop).
    package let runningEvaluations = Atomic<Int>(0)
    /// The source text the studio started with (the file's, or a template when there is none).
    private let startingText: String

    /// Time limits for the work a request starts (rule evaluation has its own, smaller limits inside).
    static let stepSeconds = 60.0
    static let testSeconds = 120.0

    /// The studio for `sourcePath` (nil: a new source, which cannot be saved) and its fixture directory.
    package init(sourcePath: String?, fixtureDirectory: String?, fetcher: PoliteFetcher?, assets: StudioAssets,
                 token: String) throws(StudioError) {
        access = StudioAccess(token: token)
        files = StudioFiles(sourcePath: sourcePath, fixtureDirectory: fixtureDirectory)
        self.assets = assets
        chain = StudioChain(fixtureDirectory: files.fixtureDirectory, fetcher: fetcher)
        if let sourcePath, FileManager.default.fileExists(atPath: sourcePath) {
            do {
                startingText = String(decoding: try LocalFile.read(sourcePath), as: UTF8.self)
            } catch {
                throw .unreadableSource(path: sourcePath, reason: error.reason)
            }
        } else {
            startingText = Self.template
        }
    }

    /// A new source's starting text.
    static let template = """
    {
      "bookSourceName": "New source",
      "bookSourceUrl": "https://www.example.com",
      "searchUrl": "/search?q={{key}}",
      "ruleSearch": {"bookList": "", "name": "", "bookUrl": ""},
      "ruleBookInfo": {"name": "", "author": "", "tocUrl": ""},
      "ruleToc": {"chapterList": "", "chapterName": "", "chapterUrl": ""},
      "ruleContent": {"content": ""}
    }

    """

    /// Makes requests that wait for a step or a test answer 503 now, so the server can stop without waiting.
    package func beginStopping() {
        stopping.store(true, ordering: .sequentiallyConsistent)
    }

    /// Whether work for a request should give up: the studio is stopping, or the request's client has gone.
    private func giveUp(_ clientGone: @escaping @Sendable () -> Bool) -> @Sendable () -> Bool {
        { [self] in self.stopping.load(ordering: .sequentiallyConsistent) || clientGone() }
    }

    /// Answers one request (on a server connection thread).
    package func handle(_ request: HTTPServerRequest) -> HTTPServerResponse {
        do {
            try access.check(request)
            if request.bodyTooLarge { throw StudioRefusal.tooLarge }
            var response = try route(request)
            Self.addCommonHeaders(&response)
            return response
        } catch let refusal as StudioRefusal {
            var response = refusal.response
            Self.addCommonHeaders(&response)
            return response
        } catch {
            var response = HTTPServerResponse.json(["error": "\(error)"], status: 500)
            Self.addCommonHeaders(&response)
            return response
        }
    }

    /// Headers every answer carries: nothing is cached, nothing is sniffed, no referrer leaves, and no other
    /// site may frame the studio.
    private static func addCommonHeaders(_ response: inout HTTPServerResponse) {
        response.headers += [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                             ("Referrer-Policy", "no-referrer"), ("Cross-Origin-Resource-Policy", "same-origin")]
        if response.header("Content-Security-Policy") == nil {
            response.headers.append(("Content-Security-Policy", pageSecurityPolicy))
        }
    }

    /// The studio page's own policy: its scripts and styles from itself only, frames from itself only.
    static let pageSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        + "connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'"

    /// The frame's policy: no scripts at all, styles inline or from the studio, images only inline (the site's
    /// own are not loaded), nothing else; and a sandbox that holds even if the page is opened on its own.
    static let frameSecurityPolicy = "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src data:; "
        + "frame-ancestors 'self'; form-action 'none'; base-uri 'none'; sandbox allow-same-origin"

    private func route(_ request: HTTPServerRequest) throws -> HTTPServerResponse {
        let path = request.path
        let method = request.method.uppercased()
        func require(_ wanted: String) throws(StudioRefusal) {
            guard method == wanted || (wanted == "GET" && method == "HEAD") else { throw .wrongMethod(allowed: wanted) }
        }
        switch path {
        case "/", "/index.html":
            try require("GET")
            var response = asset("index.html")
            response.headers.append(("Set-Cookie", access.cookie))
            return response
        case "/api/state":
            try require("GET")
            return .json(state())
        case "/api/evaluate":
            try require("POST")
            return .json(try evaluate(try StudioRequestBody(request), clientGone: request.clientGone))
        case "/api/propose":
            try require("GET")
            return .json(try propose(request))
        case "/api/page":
            try require("POST")
            return .json(try openPage(try StudioRequestBody(request)))
        case "/api/step":
            try require("POST")
            return .json(try runStep(try StudioRequestBody(request), clientGone: request.clientGone))
        case "/api/test":
            try require("POST")
            return .json(try runTest(try StudioRequestBody(request), clientGone: request.clientGone))
        case "/api/save":
            try require("POST")
            return .json(try save(try StudioRequestBody(request)))
        default:
            break
        }
        if path.hasPrefix("/frame/") {
            try require("GET")
            return try frame(String(path.dropFirst("/frame/".count)))
        }
        if path.hasPrefix("/assets/") {
            try require("GET")
            let name = String(path.dropFirst("/assets/".count))
            guard assets.files[name] != nil, name != "index.html" else { throw StudioRefusal.forbidden("no such studio file: \(name)") }
            return asset(name)
        }
        if path.hasPrefix("/codemirror/") {
            try require("GET")
            let name = String(path.dropFirst("/codemirror/".count))
            guard let bytes = assets.codeMirror[name] else {
                throw StudioRefusal.forbidden("\(name) is not one of the CodeMirror files the studio serves")
            }
            return HTTPServerResponse(status: 200, headers: [("Content-Type", StudioAssets.contentType(name))], body: bytes)
        }
        throw StudioRefusal.notFound("no such page: \(path)")
    }

    private func asset(_ name: String) -> HTTPServerResponse {
        HTTPServerResponse(status: 200, headers: [("Content-Type", StudioAssets.contentType(name))], body: assets.files[name] ?? [])
    }

    // MARK: - Routes

    /// What the page needs to start.
    package struct State: Sendable, Codable {
        package var source: String
        package var sourcePath: String?
        package var canSave: Bool
        package var fixtureDirectory: String?
        package var fixtureFiles: [String]
        package var live: Bool
        package var codeMirror: Bool
        package var pages: [String: StudioEvaluation.PageSummary]
    }

    private func state() -> State {
        var pages: [String: StudioEvaluation.PageSummary] = [:]
        for step in StudioStep.allCases {
            guard let page = session.page(step) else { continue }
            pages[step.rawValue] = StudioEvaluation.PageSummary(url: page.url, status: page.status, origin: page.origin,
                                                                charset: page.document.charset.description,
                                                                elements: page.sanitized.elements.count)
        }
        return State(source: startingText, sourcePath: files.sourcePath, canSave: files.sourcePath != nil,
                     fixtureDirectory: files.fixtureDirectory, fixtureFiles: fixtureFiles(), live: chain.fetcher != nil,
                     codeMirror: !assets.codeMirror.isEmpty, pages: pages)
    }

    /// The fixture directory's regular files (not below it: saved pages sit at its top level), for the page list.
    private func fixtureFiles() -> [String] {
        guard let directory = files.fixtureDirectory,
              let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return names.filter { !$0.hasPrefix(".") && (try? files.fixtureFile($0)) != nil }.sorted()
    }

    /// Runs an evaluation until it ends, its client goes away (`clientGone`, asked at most every 20 ms) or a
    /// newer evaluation starts: the page sends one per edit and abandons the previous one, whose work would
    /// otherwise go on for nobody.
    private func evaluate(_ body: StudioRequestBody, clientGone: @Sendable () -> Bool) throws -> StudioEvaluation.Answer {
        let step = try body.step()
        let text = try body.string("source")
        let number = latestEvaluation.add(1, ordering: .sequentiallyConsistent).newValue
        runningEvaluations.add(1, ordering: .sequentiallyConsistent)
        defer { runningEvaluations.subtract(1, ordering: .sequentiallyConsistent) }
        let clock = ContinuousClock()
        var asked = clock.now
        let shouldStop = { [self] () -> Bool in
            if self.latestEvaluation.load(ordering: .relaxed) != number || self.stopping.load(ordering: .relaxed) { return true }
            let now = clock.now
            guard now - asked >= .milliseconds(20) else { return false }
            asked = now
            return clientGone()
        }
        do {
            return try StudioEvaluation.evaluate(sourceText: text, step: step, page: session.page(step),
                                                 focus: body.optionalString("field"), shouldStop: shouldStop)
        } catch {
            throw StudioRefusal.abandoned("the evaluation stopped: a newer edit superseded it, or its request was abandoned")
        }
    }

    private func frame(_ name: String) throws -> HTTPServerResponse {
        guard let step = StudioStep(rawValue: name) else { throw StudioRefusal.notFound("no step called \(name)") }
        let headers = [("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", Self.frameSecurityPolicy),
                       ("X-Frame-Options", "SAMEORIGIN")]
        guard let page = session.page(step) else {
            let empty = "<!DOCTYPE html><meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"\(SanitizedPage.stylesheetPath)\">"
                + "<p class=\"br-empty\">No page for this step yet: run the step, or open a saved page.</p>"
            return HTTPServerResponse(status: 200, headers: headers, body: Array(empty.utf8))
        }
        return HTTPServerResponse(status: 200, headers: headers, body: page.sanitized.html)
    }

    private func propose(_ request: HTTPServerRequest) throws -> NodeProposal {
        guard let step = request.argument("step").flatMap(StudioStep.init(rawValue:)) else {
            throw StudioRefusal.badRequest("give step=search|book|toc|chapter")
        }
        guard let page = session.page(step) else { throw StudioRefusal.notFound("the \(step.rawValue) step has no page yet") }
        guard let number = request.argument("node").flatMap(Int.init), page.sanitized.elements.indices.contains(number) else {
            throw StudioRefusal.badRequest("give node=N, the data-br number of an element of the page")
        }
        let list = request.argument("list").flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0 }
        return NodeProposal(node: page.sanitized.elements[number], page: page, listRule: list)
    }

    /// Opens a file of the fixture directory as the page of a step, saved from `url`.
    private func openPage(_ body: StudioRequestBody) throws -> StudioEvaluation.PageSummary {
        let step = try body.step()
        let relative = try body.string("file")
        let url = try body.string("url")
        guard URLReference.isHTTP(url) else { throw StudioRefusal.badRequest("give the page's real http(s) URL (links resolve against it)") }
        let file = try files.readFixtureFile(relative)
        let saved = SavedPage(url: url, body: file.bytes, file: file.path)
        let page = try StudioPage(url: url, status: saved.status, origin: relative, bytes: saved.body, contentType: saved.contentType)
        session.setPage(page, for: step)
        session.addOpenedFile(saved)
        return StudioEvaluation.PageSummary(url: url, status: page.status, origin: relative, charset: page.document.charset.description,
                                            elements: page.sanitized.elements.count)
    }

    private func runStep(_ body: StudioRequestBody, clientGone: @escaping @Sendable () -> Bool) throws -> StudioChain.Answer {
        let step = try body.step()
        let source = try Self.source(try body.string("source"))
        let url = body.optionalString("url").flatMap { $0.isEmpty ? nil : $0 }
        let keyword = body.optionalString("keyword").flatMap { $0.isEmpty ? nil : $0 }
        let live = body.bool("live")
        let record = body.bool("record")
        let opened = session.openedFiles
        let chain = chain
        guard let (answer, response) = BoundedWork.run(seconds: Self.stepSeconds, executor: executor, stopping: giveUp(clientGone), {
            await chain.run(step, source: source, url: url, keyword: keyword, live: live, record: record, opened: opened)
        }) else {
            throw StudioRefusal.timedOut("the \(step.rawValue) step did not finish in \(Int(Self.stepSeconds)) s (or the studio is stopping, or the request was abandoned)")
        }
        var result = answer
        if let response {
            do {
                let page = try StudioPage(url: response.url, status: response.status, origin: live || record ? "live" : "fixture",
                                          bytes: response.body, contentType: response.contentType)
                session.setPage(page, for: step)
                result.url = response.url
            } catch {
                result.warnings.append("the page cannot be shown: \(error)")
            }
        }
        return result
    }

    private func runTest(_ body: StudioRequestBody, clientGone: @escaping @Sendable () -> Bool) throws -> CheckReport {
        let source = try Self.source(try body.string("source"))
        guard let fixture = chain.fixture else { throw StudioRefusal.conflict("there is no fixture directory to test on") }
        let options = CheckOptions(bookURL: body.optionalString("book").flatMap { $0.isEmpty ? nil : $0 },
                                   chapterURLs: body.optionalString("chapter").flatMap { $0.isEmpty ? nil : [$0] } ?? [])
        let run = CheckRun(options: options, saved: session.openedFiles, timeout: .seconds(Self.testSeconds),
                           missingFixtureAdvice: "open a saved page, or record the steps live", executor: executor)
        guard let report = BoundedWork.run(seconds: Self.testSeconds, executor: executor, stopping: giveUp(clientGone), {
            await run.check(CheckRun.Target(source: source, fixture: fixture))
        }) else {
            throw StudioRefusal.timedOut("bookrule test did not finish in \(Int(Self.testSeconds)) s")
        }
        return report
    }

    /// What a save did.
    package struct Saved: Sendable, Codable {
        package var path: String
        package var backup: String?
        package var bytes: Int
    }

    /// Writes the source atomically, after copying the file as it was to `SOURCE.json.bak` (also atomically).
    /// Text that is not JSON is refused: a save must leave a file `bookrule` can read.
    private func save(_ body: StudioRequestBody) throws -> Saved {
        guard let path = files.sourcePath, let backup = files.backupPath else {
            throw StudioRefusal.conflict("the studio was started without a SOURCE.json, so there is no file to save to")
        }
        let text = try body.string("source")
        do {
            _ = try JSONParser.parse(text)
        } catch {
            throw StudioRefusal.badRequest("not saved: the source is not valid JSON (\(error))")
        }
        var kept: String?
        // Both keep the source's mode and owner: a private source stays private, and so does its backup.
        if FileManager.default.fileExists(atPath: path) {
            try LocalFile.writeAtomically(try LocalFile.read(path), to: backup, permissionsOf: path)
            kept = backup
        }
        let bytes = Array(text.utf8)
        try LocalFile.writeAtomically(bytes, to: path, permissionsOf: path)
        return Saved(path: path, backup: kept, bytes: bytes.count)
    }

    private static func source(_ text: String) throws -> BookSource {
        let sources: [BookSource]
        do {
            sources = try BookSource.load(bytes: Array(text.utf8), path: "source")
        } catch {
            throw StudioRefusal.badRequest("\(error)")
        }
        guard let first = sources.first else { throw StudioRefusal.badRequest("the file holds no source") }
        return first
    }
}
