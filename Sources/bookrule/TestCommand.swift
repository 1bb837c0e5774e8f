import BookRule
import Foundation

/// `bookrule test SOURCE…`: replays each source's recorded fixtures through the real engine and reports, step
/// by step and rule by rule, what matched and what broke.
struct TestCommand: Command {
    static let helps = [CommandHelp(
        name: "test", summary: "Check sources against their recorded fixtures, rule by rule",
        usage: ["bookrule test SOURCE... [options]"],
        about: """
        Runs each source's chain (search -> first result -> book info -> TOC -> first and last chapter, or the
        chapters given with --chapter) against its recorded fixture (or saved pages) and checks every step. A
        failed source is classed: unreachable, blocked by an anti-bot page, HTTP error, a rule broke, or could
        not check. A file holding an array runs every source in it. Fixtures live in
        Fixtures/<file stem>/ (Fixtures/<file stem>/<index>/ for array files): site.har (HAR 1.2, as browsers'
        dev tools export it) and expected.json (the snapshot); pages.json, saved pages answered before site.har. Exit
        status 0 only when every step passes (and the snapshot matches), 1 when a source fails (a rule that cannot
        run included: that is what test reports), 2 when a file cannot be read or the command line cannot run.
        RSS sources (订阅源) in the files are checked too, on standard error: their sorts, the first sort's articles
        and the first article's text, on the same fixtures (recorded with bookrule rss --record FIXTURE/site.har).
        """,
        groups: [
            OptionGroup([
                .value("--fixtures", "DIR", summary: "Fixture directory (one source only) instead of Fixtures/<stem>/",
                       completes: .directory),
                .value("--keyword", "K", summary: "Search keyword (default: the source's ruleSearch.checkKeyWord)"),
                .value("--book", "URL", summary: "Check this book page instead of the first search result"),
                .value("--chapter", "URL", summary: "Check this chapter instead of the first and last (repeatable)",
                       repeats: true),
                .value("--saved", "FILE", summary: "A saved page standing in for --book URL (or for the first request); "
                       + "--saved URL=FILE for others (repeatable); --saved-dir DIR for DIR/pages.json. The fixture's "
                       + "site.har, when it exists, answers what they do not; nothing is fetched", completes: .file,
                       repeats: true),
                .value("--saved-dir", "DIR", summary: "Saved pages listed in DIR/pages.json (see docs/authoring.md)",
                       completes: .directory, repeats: true),
                .value("--shard", "K/N", summary: "Check only part K of N of the sources (a stable hash of bookSourceUrl; "
                       + "see docs/scale.md)"),
                .flag("--record", summary: "Fetch live and save the fixture (replaces site.har)"),
                .flag("--live", summary: "Fetch live without saving anything"),
                .flag("--update", summary: "Write the snapshot (expected.json) from this run"),
                .value("--min-length", "N", summary: "Chapters shorter than N characters fail (default 50)"),
                .value("--source-timeout", "SECONDS", summary: "Give up on one source after this long (default 120)"),
                .value("--jobs", "N", summary: "Sources checked at once (default 4)"),
                .flag("--json", summary: "Print the reports as JSON (see docs/testing.md)"),
                .value("--junit", "FILE", summary: "Also write a JUnit XML report to FILE", completes: .file),
                .flag("--verbose", summary: "Show every rule and request, not only those of failing steps (with --record "
                      + "or --live, every request is also logged on stderr)"),
            ]),
            // --verbose is test's own, listed above.
            OptionGroup("Fetching with --record or --live (through the polite fetcher)",
                        FetchOptions.options.filter { $0.key != "--verbose" }),
        ],
        operands: .source)]

    /// SOURCE…: the source files.
    let sourcePaths: [String]
    /// `--fixtures`: the one fixture directory, instead of each source's own.
    let fixtures: String?
    /// `--keyword`, `--book`, `--min-length` and `--chapter`.
    let checkOptions: CheckOptions
    /// `--shard K/N`.
    let shard: Shard?
    /// Replayed, `--record` or `--live`.
    let mode: CheckRun.Mode
    /// `--saved` and `--saved-dir`, read when the run starts.
    let offline: OfflinePages.Request
    /// `--update`: write the snapshots.
    let updatesSnapshots: Bool
    /// `--source-timeout`.
    let timeout: Duration
    /// `--jobs`.
    let jobs: Int
    /// `--json`.
    let json: Bool
    /// `--junit FILE`.
    let junit: String?
    /// `--verbose`: every rule and request.
    let verbose: Bool
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard !arguments.positionals.isEmpty else { throw UsageError("name at least one source file") }
        sourcePaths = arguments.positionals
        if arguments.has("--record") && arguments.has("--live") { throw UsageError("--record and --live exclude each other") }
        checkOptions = CheckOptions(keyword: arguments.value("--keyword"), bookURL: arguments.value("--book"),
                                    minimumContentLength: try arguments.positiveInt("--min-length", default: 50),
                                    chapterURLs: arguments.values("--chapter"))
        shard = try arguments.value("--shard").map { text throws(UsageError) in
            guard let shard = Shard(text) else { throw UsageError("--shard takes K/N with 1 <= K <= N (e.g. 1/4), not \"\(text)\"") }
            return shard
        }
        offline = OfflinePages.Request(arguments)
        fetching = try FetchOptions(arguments)
        mode = arguments.has("--record") ? .record : (arguments.has("--live") ? .live : .replay)
        updatesSnapshots = arguments.has("--update")
        timeout = .seconds(try arguments.positiveInt("--source-timeout", default: 120, maximum: 86_400))
        jobs = try arguments.positiveInt("--jobs", default: 4, maximum: 64)
        fixtures = arguments.value("--fixtures")
        json = arguments.has("--json")
        junit = arguments.value("--junit")
        verbose = arguments.has("--verbose")
    }

    func run(terminal: Terminal) async throws -> Int32 {
        var checkRun: CheckRun
        do {
            // Read once here (standard input cannot be read twice); each source gets its own transport.
            let pages = try OfflinePages(offline, commandURL: checkOptions.bookURL)
            checkRun = CheckRun(options: checkOptions, mode: mode, saved: pages.pages, updatesSnapshots: updatesSnapshots,
                                timeout: timeout, jobs: jobs,
                                missingFixtureAdvice: "record one with `bookrule test --record`, build one with `bookrule fixture add`, "
                                    + "or give saved pages with --saved")
            guard pages.pages.isEmpty || mode == .replay else {
                throw UsageError("--saved and --saved-dir answer offline; they exclude --record and --live")
            }
            if mode != .replay { checkRun.live = Self.liveTransport(try fetching.stack(terminal: terminal), terminal: terminal) }
        } catch {
            // A saved page that cannot be read is part of a command line that cannot run, as it always was.
            terminal.error(UsageMessage.text(error, command: "test"))
            return ExitStatus.cannotRun.code
        }

        var (targets, unreadable) = CheckRun.Target.all(inFiles: sourcePaths, fixtureDirectory: fixtures)
        // RSS sources (订阅源) are checked by `RssCheck` below: a file of them alone is no error here.
        unreadable = unreadable.filter { error in
            if case SourceFileError.onlyRssSources? = error as? SourceFileError { return false }
            return true
        }
        for error in unreadable { terminal.error("error: \(error)") }
        if let shard {
            let all = targets.count
            targets = targets.filter { shard.contains(sourceURL: $0.source.url) }
            terminal.error("shard \(shard): \(targets.count) of \(all) source(s)")
        }
        if fixtures != nil && targets.count > 1 {
            terminal.error("error: --fixtures names one fixture directory, but \(targets.count) sources were given")
            return ExitStatus.cannotRun.code
        }

        let rssPassed = await checkRssSources(run: checkRun, terminal: terminal)
        let reports = await checkRun.run(targets)
        if let failed = CheckReportPrinter.write(reports, json: json, verbose: verbose, junit: junit, terminal: terminal) {
            return failed.code
        }
        return (!unreadable.isEmpty ? ExitStatus.cannotRun
            : reports.allSatisfy(\.passed) && rssPassed != false ? .done : .workFailed).code
    }

    /// Checks the RSS sources of the files given (`RssCheck`: sorts, articles, an article's text) on their
    /// fixtures, or live with --live; their lines go to standard error, so `--json` output stays one document.
    /// Nil when the files hold no RSS source.
    private func checkRssSources(run: CheckRun, terminal: Terminal) async -> Bool? {
        var sources: [(RssSource, path: String)] = []
        for path in sourcePaths {
            guard let file = try? SourceFile.load(contentsOf: path) else { continue }
            sources += file.rssSources.map { ($0, path) }
        }
        guard !sources.isEmpty else { return nil }
        var passed = true
        for (source, path) in sources {
            let fixture = fixtures.map(CheckFixture.init(directory:))
                ?? CheckFixture(forSourceFile: path, index: source.origin.index)
            let transport: SourceTransport?
            switch run.mode {
            case .replay:
                transport = (try? fixture.transport(adding: run.saved)).map { SourceTransport(plain: $0) }
            case .live:
                transport = run.live?(source.engineSource)
            case .record:
                terminal.error("FAIL  \(source.name) (RSS): --record records book sources; record an RSS source's fixture with "
                               + "bookrule rss --source \(path) --record \(fixture.harPath)")
                passed = false
                continue
            }
            guard let transport else {
                terminal.error("FAIL  \(source.name) (RSS): no fixture in \(fixture.directory); record one with "
                               + "mkdir -p \(fixture.directory) && bookrule rss --source \(path) --json --record \(fixture.harPath)")
                passed = false
                continue
            }
            let report = await RssCheck.run(source, connection: transport, replaying: run.mode == .replay)
            terminal.error("\(report.passed ? "PASS" : "FAIL")  \(source.name) (RSS)")
            for step in report.steps { terminal.error("      \(step.passed ? "ok  " : "FAIL") \(step.name): \(step.detail)") }
            if !report.passed { passed = false }
        }
        return passed
    }

    /// The transport of each source's live requests: through the one polite fetcher all sources share, so two
    /// sources on one host still take turns, with each source's stored login (`bookrule login`).
    static func liveTransport(_ stack: TransportStack, terminal: Terminal) -> CheckRun.LiveTransport {
        { source in
            let connection = stack.transport(for: source)
            for warning in connection.warnings { terminal.error("warning: \(source.name): \(warning)") }
            return connection
        }
    }
}
