import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON
import BookRuleLocking
import Foundation

/// What `bookrule test` runs over its sources, and the studio's "Run test" over one: each source checked on
/// its fixture (replayed), live and recorded into it, or live; its snapshot written when asked and compared;
/// several sources at once, each given up on after a time bound so that a site that hangs does not stall the
/// others. Callers parse their input and show the reports.
public struct CheckRun: Sendable {
    /// Where a check's requests go.
    public enum Mode: Sendable {
        /// Answered from the fixture (and the saved pages given); nothing is fetched.
        case replay
        /// Live, and saved as the fixture's `site.har` when every step passed.
        case record
        /// Live, nothing saved.
        case live
    }

    /// One source and its fixture.
    public struct Target: Sendable {
        /// The source under test.
        public let source: BookSource
        /// Its fixture.
        public let fixture: CheckFixture

        /// A target.
        public init(source: BookSource, fixture: CheckFixture) {
            self.source = source
            self.fixture = fixture
        }

        /// Every source of the files at `paths`, each with its default fixture (`CheckFixture(forSourceFile:index:)`)
        /// or, when `fixtureDirectory` is given, that one; and why each file that could not be read could not.
        public static func all(inFiles paths: [String], fixtureDirectory: String? = nil) -> (targets: [Target], unreadable: [any Error]) {
            var targets: [Target] = []
            var unreadable: [any Error] = []
            for path in paths {
                do {
                    targets += try BookSource.load(contentsOf: path).map { source in
                        Target(source: source, fixture: fixtureDirectory.map(CheckFixture.init(directory:))
                            ?? CheckFixture(forSourceFile: path, index: source.origin.index))
                    }
                } catch {
                    unreadable.append(error)
                }
            }
            return (targets, unreadable)
        }
    }

    /// The transport a source's live requests go through (`record` and `live`).
    public typealias LiveTransport = @Sendable (BookSource) -> SourceTransport

    /// Keyword, book, chapters and thresholds.
    public var options: CheckOptions
    /// Where requests go.
    public var mode: Mode
    /// Saved pages answered before each fixture's own (replay only).
    public var saved: [SavedPage]
    /// Whether a run whose steps all passed writes its snapshot (`expected.json`).
    public var updatesSnapshots: Bool
    /// How long one source may take.
    public var timeout: Duration
    /// How many sources are checked at once.
    public var jobs: Int
    /// Builds the live transport for `record` and `live`; without it, those modes fail every source.
    public var live: LiveTransport?
    /// Appended to the report of a source that has no fixture: how the caller's user makes one.
    public var missingFixtureAdvice: String?
    /// Where each check runs (the studio's own thread); nil for Swift's global pool.
    public var executor: (any TaskExecutor)?

    /// A run.
    public init(options: CheckOptions = CheckOptions(), mode: Mode = .replay, saved: [SavedPage] = [],
                updatesSnapshots: Bool = false, timeout: Duration = .seconds(120), jobs: Int = 4,
                live: LiveTransport? = nil, missingFixtureAdvice: String? = nil, executor: (any TaskExecutor)? = nil) {
        self.options = options
        self.mode = mode
        self.saved = saved
        self.updatesSnapshots = updatesSnapshots
        self.timeout = timeout
        self.jobs = jobs
        self.live = live
        self.missingFixtureAdvice = missingFixtureAdvice
        self.executor = executor
    }

    /// Checks every target, `jobs` at a time; the reports come back in the targets' order.
    public func run(_ targets: [Target]) async -> [CheckReport] {
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
            for _ in 0..<min(max(jobs, 1), targets.count) { startNext() }
            for await (index, report) in group {
                reports[index] = report
                startNext()
            }
        }
        return reports.compactMap { $0 }
    }

    /// Checks one target, saving the recording and the snapshot as asked, and compares the snapshot.
    public func check(_ target: Target) async -> CheckReport {
        let fixture = target.fixture
        let connection: SourceTransport
        let recorder: RecordingTransport?
        do {
            (connection, recorder) = try self.transport(for: target)
        } catch {
            return Self.failedReport(target, error.message, kind: .couldNotCheck)
        }

        var report = await bounded(target, SourceCheck(source: target.source, connection: connection, options: options))

        // A failed or timed-out run must not replace a good fixture or snapshot with a broken one.
        let stepsPassed = report.steps.allSatisfy { $0.status != .failed }
        do {
            if let recorder {
                if stepsPassed {
                    try LocalFile.makeDirectories(fixture.directory)
                    try recorder.recording.write(to: fixture.harPath)
                } else {
                    report.steps.append(StepReport(name: "record", status: .failed,
                                                   error: "not saved: the live run failed, so \(fixture.harPath) was left as it was",
                                                   requests: [], rules: [], checks: [], milliseconds: 0,
                                                   failure: report.failure ?? .couldNotCheck))
                }
            }
            let written = updatesSnapshots && stepsPassed
            if written { try SnapshotStore.write(report.snapshot, to: fixture.snapshotPath) }
            report.snapshotComparison = try SnapshotStore.compare(report.snapshot, withFileAt: fixture.snapshotPath)
            report.snapshotComparison?.written = written
        } catch {
            report.steps.append(StepReport(name: "fixture files", status: .failed, error: "\(error)", requests: [],
                                           rules: [], checks: [], milliseconds: 0, failure: .couldNotCheck))
        }
        return report
    }

    /// Why a target cannot be checked at all.
    private struct Unready: Error {
        let message: String
    }

    /// What `target`'s requests go through in `mode`, and the recorder when recording: the one place a check's
    /// transport is built.
    private func transport(for target: Target) throws(Unready) -> (SourceTransport, RecordingTransport?) {
        switch mode {
        case .replay:
            let replay: (any HTTPTransport)?
            do {
                replay = try target.fixture.transport(adding: saved)
            } catch {
                throw Unready(message: "\(error)")
            }
            guard let replay else {
                let advice = missingFixtureAdvice.map { " (\($0))" } ?? ""
                throw Unready(message: "no fixture: \(target.fixture.harPath) does not exist\(advice)")
            }
            return (SourceTransport(plain: replay), nil)
        case .record, .live:
            guard let live else { throw Unready(message: "no live transport was given") }
            let upstream = live(target.source)
            guard mode == .record else { return (upstream, nil) }
            let recording = RecordingTransport(upstream: upstream.transport)
            return (upstream.wrapped { _ in recording }, recording)
        }
    }

    /// Runs `check`, giving up after `timeout`: a site that never answers must not stall the other sources. The
    /// abandoned check is cancelled and left behind (a task group would wait for it to notice); the report says
    /// it timed out.
    private func bounded(_ target: Target, _ check: SourceCheck) async -> CheckReport {
        let timeout = timeout
        let executor = executor
        let answered = Locked(false)
        @Sendable func claim() -> Bool {
            answered.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<CheckReport, Never>) in
            let timer = Task {
                try? await Task.sleep(for: timeout)
                return claim()
            }
            let work = Task(executorPreference: executor) {
                let report = await check.run()
                if claim() {
                    timer.cancel()
                    continuation.resume(returning: report)
                }
            }
            Task {
                if await timer.value {
                    work.cancel()
                    continuation.resume(returning: Self.failedReport(target, "timed out after \(timeout)", kind: .unreachable))
                }
            }
        }
    }

    /// The report of a source that could not be checked at all.
    static func failedReport(_ target: Target, _ message: String, kind: FailureKind) -> CheckReport {
        let source = target.source
        return CheckReport(source: source.name, sourceURL: source.url, origin: source.origin.description,
                           steps: [StepReport(name: "fixture", status: .failed, error: message, requests: [], rules: [],
                                              checks: [], milliseconds: 0, failure: kind)],
                           snapshot: Snapshot(), snapshotComparison: nil, milliseconds: 0)
    }
}
