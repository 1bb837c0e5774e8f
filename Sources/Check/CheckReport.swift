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

    /// Why the source failed, nil when it passed: the kind of the first failed step (a step failed without a
    /// kind, as reports written before kinds existed, counts as `ruleBroke`), or `ruleBroke` when only the
    /// snapshot differs.
    public var failure: FailureKind? {
        if let step = steps.first(where: { $0.status == .failed }) { return step.failure ?? .ruleBroke }
        return snapshotComparison?.matches == false ? .ruleBroke : nil
    }

    /// The report's members, `failure` included, so `--json` readers need not derive it.
    private enum CodingKeys: String, CodingKey {
        case source, sourceURL, origin, steps, snapshot, snapshotComparison, milliseconds, failure
    }

    /// Reads a report (`failure` is derived from the steps, so a written one is not read back).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        source = try container.decode(String.self, forKey: .source)
        sourceURL = try container.decode(String.self, forKey: .sourceURL)
        origin = try container.decode(String.self, forKey: .origin)
        steps = try container.decode([StepReport].self, forKey: .steps)
        snapshot = try container.decode(Snapshot.self, forKey: .snapshot)
        snapshotComparison = try container.decodeIfPresent(SnapshotComparison.self, forKey: .snapshotComparison)
        milliseconds = try container.decode(Double.self, forKey: .milliseconds)
    }

    /// Writes the report with its `failure`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(sourceURL, forKey: .sourceURL)
        try container.encode(origin, forKey: .origin)
        try container.encode(steps, forKey: .steps)
        try container.encode(snapshot, forKey: .snapshot)
        try container.encodeIfPresent(snapshotComparison, forKey: .snapshotComparison)
        try container.encode(milliseconds, forKey: .milliseconds)
        try container.encodeIfPresent(failure, forKey: .failure)
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
    /// For a failed step, what kind of failure it was.
    public var failure: FailureKind?

    /// Creates a step report.
    public init(name: String, status: Status, error: String?, requests: [FetchTrace], rules: [RuleTraceEntry],
                checks: [CheckResult], milliseconds: Double, failure: FailureKind? = nil) {
        self.failure = failure
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
