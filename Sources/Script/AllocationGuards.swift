/// Checks in front of the builtins that make a large value in one native step, which the heap limit's
/// watchdog (every 10 ms of CPU time, between JavaScript operations) cannot interrupt: `"x".repeat(2**30)`
/// allocates its 1 GiB at once, `new Array(1e9).fill(0)` fills 8 GB of slots in native code. Each wrapper
/// works out the size of what it would make, from its arguments alone, and throws a RangeError naming the
/// heap limit when that alone passes it; below the limit it calls the original builtin unchanged.
///
/// Evaluated once per runtime, after the prelude and before `jsLib`. Sizes are counted at one byte per
/// character (JavaScriptCore's 8-bit strings; a 16-bit string may reach twice the limit) and 8 bytes per
/// array slot.
enum AllocationGuards {
    /// The guards' source for a runtime whose heap limit is `heapLimit` bytes: `Prelude/allocation-guards.js`
    /// (embedded at build time, as the prelude is), called with the limit.
    static func source(heapLimit: Int) -> String {
        String(decoding: PackageResources.allocation_guards_js, as: UTF8.self) + "(\(heapLimit));"
    }
}
