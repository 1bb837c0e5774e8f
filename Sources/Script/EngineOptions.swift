import Foundation

/// JavaScriptCore options bookrule needs, set once before the first virtual machine of the process exists
/// (JavaScriptCore reads its options from `JSC_*` environment variables when it initialises, at the first
/// context any API call creates: a syntax check's as much as a runtime's).
enum EngineOptions {
    /// Sets the options; later calls do nothing.
    static func apply() { _ = applied }

    /// `usePollingTraps`: optimised code polls for traps at every loop back-edge.
    ///
    /// By default optimised code is only interrupted by a signal from JavaScriptCore's signal-sender thread,
    /// and that was seen to miss: with the execution time limit armed, an endless loop that had been stopped
    /// several times in a row ran on for minutes the next time while other snippets waited (found by replaying
    /// the fuzz seeds beside a looping input; 3 runs of 3 stuck without polling, none with it). Polling costs a
    /// load and a branch per iteration; the time limit is what makes running a stranger's script safe, so it
    /// must not depend on a signal arriving.
    private static let applied: Void = {
        setenv("JSC_usePollingTraps", "true", 1)
    }()
}
