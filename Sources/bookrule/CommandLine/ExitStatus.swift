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

    /// The status for `error`: `cannotRun` for a command line that cannot run as typed, a source file that
    /// cannot be read, a source whose rules cannot run the step, a library that cannot be opened and an output
    /// directory that cannot be used; `workFailed` for anything else (the site, the network, a rule that found
    /// nothing, a write that failed).
    init(for error: any Error) {
        switch error {
        // An explore category the source does not list is a wrong command line, not a failed fetch.
        case is UsageError, is SourceFileError, is ExploreError: self = .cannotRun
        case EngineError.unusableRules, EngineError.missingRule: self = .cannotRun
        case LibraryError.notALibrary, LibraryError.newerSchema, LibraryError.cannotCreateDirectory: self = .cannotRun
        case ExportError.unusableDirectory, ExportError.outsideDirectory: self = .cannotRun
        // A login store that cannot be used, a source with nothing to log in to, a button it does not have.
        case is LoginVaultError, LoginError.nothingToLogIn, LoginError.unknownButton, LoginError.opensPage,
             LoginError.noStore: self = .cannotRun
        // A rules file that cannot be read or is not rules; keeping the library's own rules is work that failed.
        case ReplaceRuleError.cannotStore: self = .workFailed
        case is ReplaceRuleError: self = .cannotRun
        default: self = .workFailed
        }
    }
}
