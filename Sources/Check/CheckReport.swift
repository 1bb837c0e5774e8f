import BookRuleEngine

/// The outcome of checking one source: every step with its requests, rules and checks, and the extracted
/// models (the snapshot). `bookrule test --json` prints an array of these; docs/testing.md documents the shape.
public struct CheckReport: Sendable, Codable, Equatable {
    /// `bookSourceName`.
    public var source: String
    /// `bookSourceUrl`.
    public var sourceURL: String
    /// Where the source came from (`file.json` or `file.json[3]`).
    public var origin: String
    /// Steps in the order they ran.
    public var steps: [StepReport]
    /// What the steps extracted.
    public var snapshot: Snapshot
    /// The comparison with the stored snapshot, when there is one.
    public var snapshotComparison: SnapshotComparison?
    /// Total time in milliseconds.
    public var milliseconds: Double

    /// Creates a report.
    public init(source: String, sourceURL: String, origin: String, steps: [StepReport], snapshot: Snapshot,
                snapshotComparison: SnapshotComparison?, milliseconds: Double) {
        self.source = source
        self.sourceURL = sourceURL
        self.origin = origin
        self.steps = steps
        self.snapshot = snapshot
        self.snapshotComparison = snapshotComparison
        self.milliseconds = milliseconds
    }

    /// True when every step passed and the snapshot (if stored) matches.
    public var passed: Bool {
        steps.allSatisfy { $0.status != .failed } && (snapshotComparison?.matches ?? true)
    }
}

/// One step of the chain: search, book info, TOC, or a chapter's content.
public struct StepReport: Sendable, Codable, Equatable {
    /// How a step ended.
    public enum Status: String, Sendable, Codable {
        case passed, failed, skipped
    }

    /// `search`, `book info`, `toc`, `first chapter`, `last chapter`.
    public var name: String
    /// Passed, failed (an error or a failed check), or skipped (an earlier step failed, or nothing to run).
    public var status: Status
    /// The step's error, when it could not finish.
    public var error: String?
    /// Pages fetched.
    public var requests: [FetchTrace]
    /// What each rule did.
    public var rules: [RuleTraceEntry]
    /// The checks made on the step's result.
    public var checks: [CheckResult]
    /// Time in milliseconds.
    public var milliseconds: Double

    /// Creates a step report.
    public init(name: String, status: Status, error: String?, requests: [FetchTrace], rules: [RuleTraceEntry],
                checks: [CheckResult], milliseconds: Double) {
        self.name = name
        self.status = status
        self.error = error
        self.requests = requests
        self.rules = rules
        self.checks = checks
        self.milliseconds = milliseconds
    }
}

/// One check on a step's result, e.g. "chapter count > 0".
public struct CheckResult: Sendable, Codable, Equatable {
    /// What was checked.
    public var name: String
    /// Whether it held.
    public var passed: Bool
    /// The evidence, e.g. the offending value.
    public var detail: String?

    /// Creates a check result.
    public init(name: String, passed: Bool, detail: String?) {
        self.name = name
        self.passed = passed
        self.detail = detail
    }
}
