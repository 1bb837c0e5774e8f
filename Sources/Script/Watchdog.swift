import CJavaScriptCore
import Foundation

/// The state of one evaluation's time and heap limits, polled by `watchdogCallback`.
///
/// Only touched on the thread running the script: JavaScriptCore calls the callback there, from the VM's
/// trap handler.
final class WatchdogState {
    /// How often (in CPU seconds) the callback looks at the clock and the heap.
    let tick = 0.01
    let limits: ScriptLimits
    /// The thread's CPU clock when the evaluation started, as far as the callback knows: read at the first
    /// tick, not when the limit is armed. Reading the clock is a system call, which cost more than a short
    /// snippet (a chapter title's clean-up, thousands of times per TOC); most evaluations end before a tick.
    private var start: Duration?
    /// Why the script was stopped, once it was.
    var fired: JSError?

    /// For an evaluation that runs a snippet for many list elements (`ScriptWorker.evaluateEach`): where the
    /// script writes the index of the element it is at. Each element has the budget of one evaluation: when
    /// the callback sees the index change, the element's CPU time and wall-time backstop start again.
    private let element: UnsafePointer<Int32>?
    /// The element index the budget is counted for.
    private var elementCounted: Int32

    init(limits: ScriptLimits, element: UnsafePointer<Int32>? = nil) {
        self.limits = limits
        self.element = element
        elementCounted = element?.pointee ?? 0
    }

    /// CPU time the evaluation (or the element of `element`) used so far, native helpers included (a nested
    /// rule evaluation runs inside one, and it must be bounded too; waiting for the network costs no CPU time).
    /// Asked by the callback only: JavaScriptCore calls it once `tick` of CPU time has passed since the limit
    /// was armed (or the callback re-armed it), so the first call (for an element: the first that sees its
    /// index) counts `tick` as used. A first call that comes late (a busy machine) is counted short by as much,
    /// a few milliseconds against a limit of seconds.
    func used() -> Duration {
        let now = threadCPUTime()
        if let element, element.pointee != elementCounted {
            elementCounted = element.pointee
            start = nil
            wallStart = ContinuousClock.now
            nativeWallTime = .zero
        }
        guard let start else {
            let assumed = now - .milliseconds(Int64(tick * 1000))
            start = assumed
            return now - assumed
        }
        return now - start
    }

    private var wallStart = ContinuousClock.now
    /// Wall time spent in native helpers (a fetch waiting for its turn), which the backstop does not count.
    var nativeWallTime: Duration = .zero

    /// A backstop in wall time, far above what the CPU limit allows on a busy machine: should the thread's CPU
    /// clock not advance as expected (the callback asked on another thread than the script's), a runaway
    /// script still ends. Time in native helpers (waiting for the network) is not counted.
    var wallTimeExceeded: Bool {
        ContinuousClock.now - wallStart - nativeWallTime > max(limits.timeLimit * 20, .seconds(20))
    }
}

/// CPU time of the calling thread: JavaScriptCore's execution time limit is measured in this clock
/// (`CLOCK_THREAD_CPUTIME_ID`), not wall time.
func threadCPUTime() -> Duration {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec))
}

/// Asked by JavaScriptCore whether to stop the script when the armed limit expires. JavaScriptCore 2.50 asks
/// once and does not re-arm the timer when the answer is "no", so the callback re-arms it itself: every
/// `tick` of CPU time it checks the evaluation's budget and the heap.
let watchdogCallback: JSShouldTerminateCallback = { context, raw in
    guard let context, let raw else { return true }
    let state = Unmanaged<WatchdogState>.fromOpaque(raw).takeUnretainedValue()
    // Once stopped, always stopped: a script that caught a nested evaluation's time-out is stopped too.
    if state.fired != nil { return true }
    let used = state.used()
    if used >= state.limits.timeLimit || state.wallTimeExceeded {
        state.fired = JSError(kind: .timeLimit, message: "stopped after \(state.limits.timeLimit) of CPU time")
        return true
    }
    let heap = JSEngine.heapBytes(context)
    if heap > state.limits.heapLimit {
        state.fired = JSError(kind: .heapLimit, message: "stopped with \(heap / 1_048_576) MiB of heap")
        return true
    }
    let remaining = state.limits.timeLimit - used
    let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
    JSContextGroupSetExecutionTimeLimit(JSContextGetGroup(context), max(min(state.tick, seconds), 0.001),
                                        watchdogCallback, raw)
    return false
}
