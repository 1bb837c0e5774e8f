import Foundation

/// JavaScriptCore options bookrule needs, set once before the first virtual machine of the process exists
/// (JavaScriptCore reads its options from `JSC_*` environment variables when it initialises, at the first
/// context any API call creates: a syntax check's as much as a runtime's).
enum JavaScriptCoreOptions {
    /// Sets the options; later calls do nothing.
    static func apply() { _ = startProblem }

    /// Why JavaScriptCore cannot start in this process, or nil when it can; the options are set on first use.
    ///
    /// JavaScriptCore reserves address space when it starts: 4 GiB (plus alignment) for its structure heap,
    /// which it cannot do without, and 1 GiB for JIT code. Under an address-space limit (`ulimit -v`) the
    /// JIT's reservation is cut to 64 MiB, which its code rarely fills, and when what is left still cannot
    /// hold the structure heap, the reservation would fail inside JavaScriptCore, which then aborts the
    /// process: scripts fail with this reason instead, and everything else runs.
    static let startProblem: String? = {
        // `usePollingTraps`: optimised code polls for traps at every loop back-edge.
        //
        // By default optimised code is only interrupted by a signal from JavaScriptCore's signal-sender thread,
        // and that was seen to miss: with the execution time limit armed, an endless loop that had been stopped
        // several times in a row ran on for minutes the next time while other snippets waited (found by replaying
        // the fuzz seeds beside a looping input; 3 runs of 3 stuck without polling, none with it). Polling costs a
        // load and a branch per iteration; the time limit is what makes running a stranger's script safe, so it
        // must not depend on a signal arriving.
        setenv("JSC_usePollingTraps", "true", 1)
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        if getenv("JSC_jitMemoryReservationSize") == nil {
            setenv("JSC_jitMemoryReservationSize", String(limitedJITReservation), 1)
        }
        // Room for the reservations, tried for real (what the process has mapped already counts too).
        let needed = structureHeapReservation + limitedJITReservation + startingHeadroom
        let probe = mmap(nil, needed, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if probe == MAP_FAILED {
            let megabytes = Int(limit.rlim_cur >> 20)
            return "the address-space limit (ulimit -v) of \(megabytes) MiB leaves no room for the \(needed >> 20) MiB JavaScriptCore reserves when it starts; raise the limit (ulimit -v unlimited lifts it) to run JavaScript"
        }
        munmap(probe, needed)
        return nil
    }()

    /// The structure heap JavaScriptCore reserves at start (4 GiB), with the alignment it asks for.
    static let structureHeapReservation = (4 << 30) + (32 << 20)
    /// The JIT code reservation under an address-space limit (JSC's default is 1 GiB).
    static let limitedJITReservation = 64 << 20
    /// What else a starting virtual machine maps (its first heap blocks, the gigacage's fallback).
    static let startingHeadroom = 256 << 20
}
