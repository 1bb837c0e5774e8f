import BookRule

/// How every command ends (README, "Exit status"): one table, so the same failure gives the same status
/// whichever command meets it.
enum ExitStatus: Int32 {
    /// The work is done.
    case done = 0
    /// Some of the work failed: a page, a chapter, a check, one source or book among several.
    case workFailed = 1
    /// Nothing could run: the command line, a file it names (a source that is not JSON, a library that cannot
    /// be opened), or the source's rules for a step the command needs.
    case cannotRun = 2

    /// The status the process exits with.
    var code: Int32 { rawValue }

    /// The status for `error` met while working: `cannotRun` for a command line that cannot run as typed and for
    /// a source whose rules cannot run the step, `workFailed` for anything else (the site, the network, a rule
    /// that found nothing).
    init(for error: any Error) {
        switch error {
        case is UsageError: self = .cannotRun
        case EngineError.unusableRules, EngineError.missingRule: self = .cannotRun
        default: self = .workFailed
        }
    }
}
