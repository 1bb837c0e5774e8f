import BookRule
import Foundation

/// `bookrule test SOURCE…`: replays each source's recorded fixtures through the real engine and reports, step
/// by step and rule by rule, what matched and what broke.
enum TestCommand {
    static let help = """
    Usage: bookrule test SOURCE... [options]

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

    Options:
      --fixtures DIR      Fixture directory (one source only) instead of Fixtures/<stem>/
      --keyword K         Search keyword (default: the source's ruleSearch.checkKeyWord)
      --book URL          Check this book page instead of the first search result
      --chapter URL       Check this chapter instead of the first and last (repeatable)
      --saved FILE        A saved page standing in for --book URL (or for the first request); --saved URL=FILE
                          for others (repeatable); --saved-dir DIR for DIR/pages.json. The fixture's site.har,
                          when it exists, answers what they do not; nothing is fetched
      --saved-dir DIR     Saved pages listed in DIR/pages.json (see docs/authoring.md)
      --shard K/N         Check only part K of N of the sources (a stable hash of bookSourceUrl; see docs/scale.md)
      --record            Fetch live and save the fixture (replaces site.har)
      --live              Fetch live without saving anything
      --update            Write the snapshot (expected.json) from this run
      --min-length N      Chapters shorter than N characters fail (default 50)
      --source-timeout SECONDS  Give up on one source after this long (default 120)
      --jobs N            Sources checked at once (default 4)
      --json              Print the reports as JSON (see docs/testing.md)
      --junit FILE        Also write a JUnit XML report to FILE
      --verbose           Show every rule and request, not only those of failing steps
      -h, --help          Show this help

    Fetching with --record or --live (through the polite fetcher):
    \(FetchOptions.help)
    """

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        var checkRun: CheckRun
        let shard: Shard?
        do {
            arguments = try CommandLineArguments(
                words,
                valueOptions: FetchOptions.valueNames.union(["--fixtures", "--keyword", "--book", "--junit", "--chapter",
                                                             "--source-timeout", "--jobs", "--min-length", "--shard",
                                                             "--saved", "--saved-dir"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--record", "--live", "--update", "--json"]))
            if arguments.has("--help") {
                terminal.print(help)
                return ExitStatus.done.code
            }
            guard !arguments.positionals.isEmpty else { throw UsageError("name at least one source file") }
            if arguments.has("--record") && arguments.has("--live") { throw UsageError("--record and --live exclude each other") }
            let options = CheckOptions(keyword: arguments.value("--keyword"), bookURL: arguments.value("--book"),
                                       minimumContentLength: try arguments.positiveInt("--min-length", default: 50),
                                       chapterURLs: arguments.values("--chapter"))
            shard = try arguments.value("--shard").map { text throws(UsageError) in
                guard let shard = Shard(text) else { throw UsageError("--shard takes K/N with 1 <= K <= N (e.g. 1/4), not \"\(text)\"") }
                return shard
            }
            // Read once here (standard input cannot be read twice); each source gets its own transport.
            let offline = try OfflinePages(arguments, commandURL: arguments.value("--book"))
            let fetch = try FetchOptions(arguments)
            checkRun = CheckRun(options: options, mode: arguments.has("--record") ? .record : (arguments.has("--live") ? .live : .replay),
                                saved: offline.pages, updatesSnapshots: arguments.has("--update"),
                                timeout: .seconds(try arguments.positiveInt("--source-timeout", default: 120, maximum: 86_400)),
                                jobs: try arguments.positiveInt("--jobs", default: 4, maximum: 64),
                                missingFixtureAdvice: "record one with `bookrule test --record`, build one with `bookrule fixture add`, "
                                    + "or give saved pages with --saved")
            guard offline.pages.isEmpty || checkRun.mode == .replay else {
                throw UsageError("--saved and --saved-dir answer offline; they exclude --record and --live")
            }
            if checkRun.mode != .replay { checkRun.live = liveTransport(try fetch.stack(terminal: terminal), terminal: terminal) }
        } catch {
            terminal.error(UsageMessage.text(error, command: "test"))
            return ExitStatus.cannotRun.code
        }

        var (targets, unreadable) = CheckRun.Target.all(inFiles: arguments.positionals, fixtureDirectory: arguments.value("--fixtures"))
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
        if arguments.value("--fixtures") != nil && targets.count > 1 {
            terminal.error("error: --fixtures names one fixture directory, but \(targets.count) sources were given")
            return ExitStatus.cannotRun.code
        }

        let rssPassed = await checkRssSources(arguments, run: checkRun, terminal: terminal)
        let reports = await checkRun.run(targets)
        if let failed = CheckReportPrinter.write(reports, json: arguments.has("--json"), verbose: arguments.has("--verbose"),
                                                 junit: arguments.value("--junit"), terminal: terminal) {
            return failed.code
        }
        return (!unreadable.isEmpty ? ExitStatus.cannotRun
            : reports.allSatisfy(\.passed) && rssPassed != false ? .done : .workFailed).code
    }

    /// Checks the RSS sources of the files given (`RssCheck`: sorts, articles, an article's text) on their
    /// fixtures, or live with --live; their lines go to standard error, so `--json` output stays one document.
    /// Nil when the files hold no RSS source.
    private static func checkRssSources(_ arguments: CommandLineArguments, run: CheckRun, terminal: Terminal) async -> Bool? {
        var sources: [(RssSource, path: String)] = []
        for path in arguments.positionals {
            guard let file = try? SourceFile.load(contentsOf: path) else { continue }
            sources += file.rssSources.map { ($0, path) }
        }
        guard !sources.isEmpty else { return nil }
        var passed = true
        for (source, path) in sources {
            let fixture = arguments.value("--fixtures").map(CheckFixture.init(directory:))
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
