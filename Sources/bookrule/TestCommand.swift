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
    dev tools export it) and expected.json (the snapshot). Exit status 0 only when every step passes.

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

    /// One source to check, with where its fixture lives.
    struct Target: Sendable {
        let source: BookSource
        let fixtureDirectory: String
        var harPath: String { fixtureDirectory + "/site.har" }
        var snapshotPath: String { fixtureDirectory + "/expected.json" }
    }

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        let options: CheckOptions
        let fetch: FetchOptions
        let timeout: Int
        let jobs: Int
        let shard: Shard?
        let offline: OfflinePages
        do {
            arguments = try CommandLineArguments(
                words,
                valueOptions: FetchOptions.valueNames.union(["--fixtures", "--keyword", "--book", "--junit", "--chapter",
                                                             "--source-timeout", "--jobs", "--min-length", "--shard",
                                                             "--saved", "--saved-dir"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--record", "--live", "--update", "--json"]))
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard !arguments.positionals.isEmpty else { throw UsageError("name at least one source file") }
            if arguments.has("--record") && arguments.has("--live") { throw UsageError("--record and --live exclude each other") }
            options = CheckOptions(keyword: arguments.value("--keyword"), bookURL: arguments.value("--book"),
                                   minimumContentLength: try arguments.positiveInt("--min-length", default: 50),
                                   chapterURLs: arguments.values("--chapter"))
            shard = try arguments.value("--shard").map(Self.shard)
            // Read once here (standard input cannot be read twice); each source gets its own transport.
            offline = try OfflinePages(arguments, commandURL: arguments.value("--book"))
            if !offline.pages.isEmpty && (arguments.has("--record") || arguments.has("--live")) {
                throw UsageError("--saved and --saved-dir answer offline; they exclude --record and --live")
            }
            timeout = try arguments.positiveInt("--source-timeout", default: 120, maximum: 86_400)
            fetch = try FetchOptions(arguments)
            jobs = try arguments.positiveInt("--jobs", default: 4, maximum: 64)
        } catch {
            terminal.error(UsageMessage.text(error, command: "test"))
            return 2
        }

        var targets: [Target] = []
        var unreadable = false
        for path in arguments.positionals {
            do {
                let sources = try BookSource.load(contentsOf: path)
                let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                for source in sources {
                    var directory = arguments.value("--fixtures") ?? "Fixtures/\(stem)"
                    if let index = source.origin.index, arguments.value("--fixtures") == nil { directory += "/\(index)" }
                    targets.append(Target(source: source, fixtureDirectory: directory))
                }
            } catch {
                terminal.error("error: \(error)")
                unreadable = true
            }
        }
        if let shard {
            let all = targets.count
            targets = targets.filter { shard.contains(sourceURL: $0.source.url) }
            terminal.error("shard \(shard): \(targets.count) of \(all) source(s)")
        }
        if arguments.value("--fixtures") != nil && targets.count > 1 {
            terminal.error("error: --fixtures names one fixture directory, but \(targets.count) sources were given")
            return 2
        }

        let mode: Mode = arguments.has("--record") ? .record : (arguments.has("--live") ? .live : .replay)
        let update = arguments.has("--update")
        let fetcher = fetch.fetcher(terminal: terminal)
        let reports = await checkAll(targets, jobs: jobs) { target in
            let wrapped = SourceTransport(for: target.source, over: fetcher)
            for warning in wrapped.warnings { terminal.error("warning: \(target.source.name): \(warning)") }
            let live = wrapped.transport
            return await checkOne(target, options: options, mode: mode, live: live, saved: offline.pages, update: update,
                                  timeout: timeout)
        }

        if arguments.has("--json") {
            do {
                terminal.print(try JSONWriter.string(reports, style: .pretty))
            } catch {
                terminal.error("error: \(error)")
                return 1
            }
        } else {
            let style = TextStyle.forStandardOutput()
            for report in reports { CheckReportPrinter(style: style, verbose: arguments.has("--verbose")).print(report, to: terminal) }
            if reports.count > 1 { CheckReportPrinter.summary(reports, style: style, to: terminal) }
        }
        if let junit = arguments.value("--junit") {
            do {
                try LocalFile.writeAtomically(Array(JUnitReport.xml(reports).utf8), to: junit)
            } catch {
                terminal.error("error: cannot write \(junit): \(error)")
                return 2
            }
        }
        if unreadable { return 2 }
        return reports.allSatisfy(\.passed) ? 0 : 1
    }

    /// `--shard K/N`.
    static func shard(_ text: String) throws(UsageError) -> Shard {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count <= 100_000,
              let shard = Shard(index: index, count: count) else {
            throw UsageError("--shard takes K/N with 1 <= K <= N (e.g. 1/4), not \"\(text)\"")
        }
        return shard
    }

    enum Mode: Sendable {
        case replay, record, live
    }

    /// Checks every target with `check`, `jobs` at a time; reports come back in the targets' order.
    static func checkAll(_ targets: [Target], jobs: Int,
                         check: @escaping @Sendable (Target) async -> CheckReport) async -> [CheckReport] {
        var reports = [CheckReport?](repeating: nil, count: targets.count)
        await withTaskGroup(of: (Int, CheckReport).self) { group in
            var next = 0
            func startNext() {
                guard next < targets.count else { return }
                let index = next
                let target = targets[index]
                next += 1
                group.addTask { (index, await check(target)) }
            }
            for _ in 0..<min(jobs, targets.count) { startNext() }
            for await (index, report) in group {
                reports[index] = report
                startNext()
            }
        }
        return reports.compactMap { $0 }
    }

    /// Checks one target in `mode`, saving the recording and snapshot as asked.
    /// `live` goes through the one polite fetcher all sources share, so two sources on one host still take turns.
    static func checkOne(_ target: Target, options: CheckOptions, mode: Mode, live: any HTTPTransport,
                         saved: [SavedPage] = [], update: Bool, timeout: Int) async -> CheckReport {
        var transport: any HTTPTransport
        var recorder: RecordingTransport?
        switch mode {
        case .replay:
            let hasFixture = FileManager.default.fileExists(atPath: target.harPath)
            guard hasFixture || !saved.isEmpty else {
                return failedReport(target, "no fixture: \(target.harPath) does not exist (record one with `bookrule test --record`, "
                                    + "build one with `bookrule fixture add`, or give saved pages with --saved)", kind: .couldNotCheck)
            }
            do {
                let replay: (any HTTPTransport)? = hasFixture ? try HARReplayTransport(contentsOf: target.harPath) : nil
                transport = saved.isEmpty ? replay ?? SavedPageTransport(pages: []) : SavedPageTransport(pages: saved, fallback: replay)
            } catch {
                return failedReport(target, "\(error)", kind: .couldNotCheck)
            }
        case .record:
            let recording = RecordingTransport(upstream: live)
            recorder = recording
            transport = recording
        case .live:
            transport = live
        }

        var report = await check(target, transport: transport, options: options, timeout: .seconds(timeout))

        // A failed or timed-out run must not replace a good fixture or snapshot with a broken one.
        let stepsPassed = report.steps.allSatisfy { $0.status != .failed }
        do {
            if let recorder {
                if stepsPassed {
                    try FileManager.default.createDirectory(atPath: target.fixtureDirectory, withIntermediateDirectories: true)
                    try recorder.recording.write(to: target.harPath)
                } else {
                    report.steps.append(StepReport(name: "record", status: .failed,
                                                   error: "not saved: the live run failed, so \(target.harPath) was left as it was",
                                                   requests: [], rules: [], checks: [], milliseconds: 0,
                                                   failure: report.failure ?? .couldNotCheck))
                }
            }
            if update && stepsPassed {
                try SnapshotStore.write(report.snapshot, to: target.snapshotPath)
            }
            report.snapshotComparison = try SnapshotStore.compare(report.snapshot, withFileAt: target.snapshotPath)
        } catch {
            report.steps.append(StepReport(name: "fixture files", status: .failed, error: "\(error)", requests: [],
                                           rules: [], checks: [], milliseconds: 0, failure: .couldNotCheck))
        }
        return report
    }

    /// Runs the check, giving up after `timeout`: a site that never answers must not stall the other sources.
    /// The abandoned check is cancelled and left behind (a task group would wait for it to notice); the report
    /// says it timed out.
    static func check(_ target: Target, transport: any HTTPTransport, options: CheckOptions,
                      timeout: Duration) async -> CheckReport {
        let check = SourceCheck(source: target.source, transport: transport, options: options)
        let answered = FirstAnswer()
        return await withCheckedContinuation { (continuation: CheckedContinuation<CheckReport, Never>) in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                return answered.claim()
            }
            let work = Task {
                let report = await check.run()
                if answered.claim() {
                    timer.cancel()
                    continuation.resume(returning: report)
                }
            }
            Task {
                if await timer.value {
                    work.cancel()
                    continuation.resume(returning: failedReport(target, "timed out after \(timeout)", kind: .unreachable))
                }
            }
        }
    }

    static func failedReport(_ target: Target, _ message: String, kind: FailureKind) -> CheckReport {
        CheckReport(source: target.source.name, sourceURL: target.source.url, origin: target.source.origin.description,
                    steps: [StepReport(name: "fixture", status: .failed, error: message, requests: [], rules: [],
                                       checks: [], milliseconds: 0, failure: kind)],
                    snapshot: Snapshot(), snapshotComparison: nil, milliseconds: 0)
    }
}
