import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP
import BookRuleRegex
import BookRuleScript

/// Runs a source's whole chain (search → book info → TOC → first and last chapter, or the chapters asked for;
/// then explore, for a source with `exploreUrl`) and reports, step by step, what was fetched, what every rule matched, which checks failed, and what kind of
/// failure each failed step is (`FailureKind`; answers that are anti-bot pages make it `blocked`). This is
/// `bookrule test`.
public struct SourceCheck: Sendable {
    /// The search step's error when there is no keyword to search for (the caller says how to give one).
    public static let missingKeyword = "no keyword: set ruleSearch.checkKeyWord in the source or give one"
    /// The search step's error when the source has no `searchUrl`: no keyword helps, a book page does (the
    /// caller says how to give one).
    public static let noSearchURL = "the source has no searchUrl, so there is nothing to search; start at a book page"

    /// The source under test.
    public let source: BookSource
    /// Where requests go (usually a HAR replay), with the source's cookie jar and login when it runs live.
    public let connection: SourceTransport
    /// Keyword, book and thresholds.
    public let options: CheckOptions

    /// Where requests go.
    public var transport: any HTTPTransport { connection.transport }

    /// Creates a check sending through `connection` (its cookie jar and login are the engine's).
    public init(source: BookSource, connection: SourceTransport, options: CheckOptions = CheckOptions()) {
        self.source = source
        self.connection = connection
        self.options = options
    }

    /// Creates a check sending through `transport` as it is (no cookie jar or login of the source's own).
    public init(source: BookSource, transport: any HTTPTransport, options: CheckOptions = CheckOptions()) {
        self.init(source: source, connection: SourceTransport(plain: transport), options: options)
    }

    /// The clock scripts see under `bookrule test`: 2024-01-01T00:00:00Z, random numbers from seed 1.
    public static let replayClock = ScriptClock.fixed(epochMilliseconds: 1_704_067_200_000, seed: 1)

    /// Runs every step; never throws: failures are in the report.
    public func run() async -> CheckReport {
        let clock = ContinuousClock()
        let started = clock.now
        let tracer = RuleTracer()
        let watch = AntiBotWatch(transport)
        // Scripts see a fixed clock and seeded randomness, so a replay gives the same answer every time.
        let engine = SourceEngine(source: source, connection: connection.wrapped { _ in watch },
                                  options: EngineOptions(scriptClock: Self.replayClock), tracer: tracer)
        var steps: [StepReport] = [loadStep()]
        var snapshot = Snapshot()

        // Search.
        let keyword = options.keyword ?? source.search.raw["checkKeyWord"]?.value.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        var bookURL = options.bookURL
        var variables: [String: String] = [:]
        if source.searchURL == nil {
            steps.append(StepReport(name: "search", status: options.bookURL == nil ? .failed : .skipped,
                                    error: Self.noSearchURL,
                                    requests: [], rules: [], checks: [], milliseconds: 0,
                                    failure: options.bookURL == nil ? .couldNotCheck : nil))
        } else if let keyword {
            snapshot.keyword = keyword
            let step = await run("search", tracer, watch) { () async throws -> [CheckResult] in
                let page = try await engine.search(key: keyword)
                snapshot.search = Array(page.results.prefix(10))
                if bookURL == nil, let first = page.results.first {
                    bookURL = first.bookURL
                    variables = first.variables
                }
                return [
                    CheckResult(name: "results found", passed: !page.results.isEmpty,
                                detail: "\(page.results.count) result(s) for \"\(keyword)\""),
                    Self.absoluteURLs("book URLs are absolute http(s)", page.results.map(\.bookURL)),
                ]
            }
            steps.append(step)
        } else {
            steps.append(StepReport(name: "search", status: options.bookURL == nil ? .failed : .skipped,
                                    error: Self.missingKeyword,
                                    requests: [], rules: [], checks: [], milliseconds: 0,
                                    failure: options.bookURL == nil ? .couldNotCheck : nil))
        }

        // Book info.
        var book: BookInfo?
        if let bookURL {
            steps.append(await run("book info", tracer, watch) { () async throws -> [CheckResult] in
                let info = try await engine.bookInfo(url: bookURL, variables: variables)
                book = info
                snapshot.book = BookSummary(info)
                return [
                    CheckResult(name: "name is not empty", passed: !info.name.isEmpty, detail: info.name),
                    Self.absoluteURLs("TOC URL is absolute http(s)", [info.tocURL]),
                ]
            })
        } else {
            steps.append(Self.skipped("book info", because: "no book to check (the search found none)"))
        }

        // Table of contents.
        var chapters: [Chapter] = []
        if let book {
            steps.append(await run("toc", tracer, watch) { () async throws -> [CheckResult] in
                let toc = try await engine.toc(of: book)
                chapters = toc.chapters
                snapshot.chapters = toc.chapters
                let untitled = toc.chapters.filter { $0.title.isEmpty }.map { "#\($0.index + 1) \($0.url)" }
                return [
                    CheckResult(name: "chapter count > 0", passed: !toc.chapters.isEmpty,
                                detail: "\(toc.chapters.count) chapter(s) from \(toc.pages.count) page(s)"),
                    Self.absoluteURLs("chapter URLs are absolute http(s)", toc.chapters.filter { !$0.isVolume }.map(\.url)),
                    CheckResult(name: "no duplicate chapter URLs", passed: toc.droppedDuplicates == 0,
                                detail: toc.droppedDuplicates == 0 ? nil
                                    : "\(toc.droppedDuplicates) entr(ies) repeated a URL already listed (a \"latest chapters\" block the rules should skip?)"),
                    CheckResult(name: "every chapter has a title", passed: untitled.isEmpty,
                                detail: untitled.isEmpty ? nil : "untitled: " + untitled.prefix(5).joined(separator: ", ")),
                ]
            })
        } else {
            steps.append(Self.skipped("toc", because: "no book page was read"))
        }

        // The chapters asked for, or the first and last.
        let readable = chapters.filter { !$0.isVolume && !$0.url.isEmpty }
        for (position, url) in options.chapterURLs.enumerated() {
            // A chapter of the TOC keeps its title and its successor (where content paging stops).
            let key = URLReference.withoutFragment(URLReference.resolve(url, against: book?.url ?? source.url) ?? url)
            let index = readable.firstIndex { URLReference.withoutFragment($0.url) == key }
            let chapter = index.map { readable[$0] } ?? Chapter(index: position, title: "", url: key)
            let next = index.flatMap { $0 + 1 < readable.count ? readable[$0 + 1] : nil }
            let isLast = position == options.chapterURLs.count - 1 && position > 0
            steps.append(await run("chapter \(position + 1)", tracer, watch) { () async throws -> [CheckResult] in
                let content = try await engine.content(of: chapter, next: next, book: book, variables: book?.variables ?? [:])
                if position == 0 { snapshot.firstChapter = content } else if isLast { snapshot.lastChapter = content }
                return [CheckResult(name: "chapter asked for", passed: true,
                                    detail: key + (index.map { " (#\($0 + 1) of the TOC)" } ?? " (not in the TOC)"))]
                    + contentChecks(content)
            })
        }
        let chapterSteps = options.chapterURLs.isEmpty ? [("first chapter", 0), ("last chapter", readable.count - 1)] : []
        for (name, index) in chapterSteps {
            guard index >= 0, index < readable.count, name == "first chapter" || readable.count > 1 else {
                steps.append(Self.skipped(name, because: readable.isEmpty ? "the TOC has no chapters" : "the book has one chapter"))
                continue
            }
            let chapter = readable[index]
            let next = index + 1 < readable.count ? readable[index + 1] : nil
            steps.append(await run(name, tracer, watch) { () async throws -> [CheckResult] in
                let content = try await engine.content(of: chapter, next: next, book: book, variables: book?.variables ?? [:])
                if index == 0 { snapshot.firstChapter = content } else { snapshot.lastChapter = content }
                return contentChecks(content)
            })
        }

        if source.exploreURL != nil { steps.append(await exploreStep(engine, tracer, watch)) }

        let elapsed = clock.now - started
        return CheckReport(source: source.name, sourceURL: source.url, origin: source.origin.description, steps: steps,
                           snapshot: snapshot, snapshotComparison: nil, milliseconds: Self.milliseconds(elapsed))
    }

    // MARK: - Steps

    /// The explore step (a source with `exploreUrl`): its categories, and the first page of the first category
    /// with a URL through `ruleExplore` (or `ruleSearch`, as the engine falls back). When replaying, a fixture
    /// without that page skips the step, naming the page; `--record` records it.
    private func exploreStep(_ engine: SourceEngine, _ tracer: RuleTracer, _ watch: AntiBotWatch) async -> StepReport {
        var unrecorded: String?
        let step = await run("explore", tracer, watch) { () async throws -> [CheckResult] in
            do {
                let categories = try await engine.exploreCategories()
                let listed = categories.filter { !$0.isHeader }
                let listing = CheckResult(name: "categories listed", passed: !listed.isEmpty,
                                          detail: "\(listed.count) categor(ies), \(categories.count - listed.count) header(s)")
                guard let category = listed.first, let url = category.url else { return [listing] }
                let page = try await engine.explore(url: url, page: 1)
                return [
                    listing,
                    CheckResult(name: "books found", passed: !page.results.isEmpty,
                                detail: "\(page.results.count) book(s) in \"\(category.title)\" (\(url))"),
                    Self.absoluteURLs("book URLs are absolute http(s)", page.results.map(\.bookURL)),
                ]
            } catch let error where Self.notInFixture(error) {
                unrecorded = "\(error)"
                return []
            }
        }
        guard let unrecorded else { return step }
        return Self.skipped("explore", because: "the fixture has no explore page (bookrule test --record records it): \(unrecorded)")
    }

    /// Whether `error` is a request the replayed fixture holds no answer for.
    private static func notInFixture(_ error: any Error) -> Bool {
        var underlying: any Error = error
        if case .transport(_, let wrapped)? = error as? EngineError { underlying = wrapped }
        if case .notRecorded? = underlying as? HARReplayError { return true }
        if case .notSaved? = underlying as? SavedPageError { return true }
        return false
    }

    private func loadStep() -> StepReport {
        let checks = source.problems.map { problem in
            let location = problem.location.map { "\(source.origin.path):\($0.line):\($0.column): " } ?? ""
            return CheckResult(name: "\(problem.field) is usable", passed: false, detail: location + problem.description)
        }
        return StepReport(name: "load", status: checks.isEmpty ? .passed : .failed, error: nil, requests: [],
                          rules: [], checks: checks.isEmpty ? [CheckResult(name: "every rule compiles and runs", passed: true, detail: nil)] : checks,
                          milliseconds: 0, failure: checks.isEmpty ? nil : .ruleBroke)
    }

    /// The check a chapter step gets when a web font drew its text; its detail is shown even when it passes.
    public static let webFontCheck = "web fonts decoded"

    private static let leftoverTag = try? RegexPattern("<[a-zA-Z/!][^>]*>")
    private static let leftoverEntity = try? RegexPattern("&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);")

    /// A chapter passes with enough text, or with pictures (a chapter of pictures is content); image lines
    /// are neither text nor leftover tags.
    private func contentChecks(_ content: ChapterContent) -> [CheckResult] {
        let pictures = content.imageURLs.count
        let prose = pictures == 0 ? content.text
            : content.text.split(separator: "\n").filter { ImageLine(line: $0) == nil }.joined(separator: "\n")
        let tag = (try? Self.leftoverTag?.firstMatch(in: prose)).flatMap { $0?[0] }
        let entity = (try? Self.leftoverEntity?.firstMatch(in: prose)).flatMap { $0?[0] }
        let length = CheckResult(
            name: "text is at least \(options.minimumContentLength) characters" + (pictures > 0 ? ", or pictures" : ""),
            passed: prose.count >= options.minimumContentLength || pictures > 0,
            detail: "\(prose.count) characters" + (pictures > 0 ? " and \(pictures) picture(s)" : "")
                + " from \(content.pages.count) page(s)")
        // Text a web font scrambles reads as nonsense: the engine's warning names the font (the check has no
        // warning level, and a source giving such text does not work).
        let obfuscation = content.warnings.filter(ObfuscatedText.isWarning)
        var checks = [
            length,
            CheckResult(name: "no leftover tags", passed: tag == nil, detail: tag),
            CheckResult(name: "no leftover entities", passed: entity == nil, detail: entity),
            CheckResult(name: "text not scrambled by a web font", passed: obfuscation.isEmpty,
                        detail: obfuscation.isEmpty ? nil : obfuscation.joined(separator: "; ")),
        ]
        // Decoded web fonts pass (low-confidence glyphs are named, as warnings are); one that could not be
        // decoded fails, saying why.
        if let fonts = content.fonts {
            checks.append(CheckResult(name: Self.webFontCheck, passed: fonts.fonts.allSatisfy { $0.error == nil },
                                      detail: fonts.summary))
        }
        return checks
    }

    private func run(_ name: String, _ tracer: RuleTracer, _ watch: AntiBotWatch,
                     _ body: () async throws -> [CheckResult]) async -> StepReport {
        let clock = ContinuousClock()
        let started = clock.now
        var checks: [CheckResult] = []
        var failure: String?
        var kind: FailureKind?
        do {
            checks = try await body()
        } catch {
            failure = "\(error)"
            kind = FailureKind.classify(error)
        }
        let (rules, fetches) = tracer.drain()
        // An anti-bot answer explains a failure, whatever the rules then made of the page: name it, and call the
        // step blocked. A step that passed is left alone (the detection is a heuristic; the rules found what
        // they wanted).
        let sightings = watch.drain()
        let failed = failure != nil || checks.contains { !$0.passed }
        if failed && !sightings.isEmpty {
            checks.append(CheckResult(name: "no anti-bot pages", passed: false,
                                      detail: sightings.prefix(3).map { "\($0.url) is \($0.page)" }.joined(separator: "; ")))
        }
        if failed { kind = sightings.isEmpty ? (kind ?? .ruleBroke) : .blocked }
        return StepReport(name: name, status: failed ? .failed : .passed, error: failure, requests: fetches,
                          rules: rules, checks: checks, milliseconds: Self.milliseconds(clock.now - started),
                          failure: failed ? kind : nil)
    }

    private static func skipped(_ name: String, because reason: String) -> StepReport {
        StepReport(name: name, status: .skipped, error: reason, requests: [], rules: [], checks: [], milliseconds: 0)
    }

    private static func absoluteURLs(_ name: String, _ urls: [String]) -> CheckResult {
        let bad = urls.filter { !URLReference.isHTTP($0) }
        return CheckResult(name: name, passed: bad.isEmpty,
                           detail: bad.isEmpty ? nil : bad.prefix(3).map { "\"\($0)\"" }.joined(separator: ", "))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
