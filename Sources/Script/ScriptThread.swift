import Foundation

/// A thread of its own that runs one runtime's jobs, one at a time, with the `ScriptWorker` living on it:
/// evaluations handed over by `run`, and the jobs of tasks that prefer the thread as their executor (the
/// engine's steps of the source, see `ScriptRuntime.stepExecutor`), whose evaluations then run inline.
///
/// JavaScriptCore serialises all work on one context group anyway, and its CPU time limit is per thread,
/// so every evaluation of a source runs here. `@unchecked Sendable`: `worker` is touched only by jobs, which
/// all run on the thread; the queue is guarded by `condition`.
final class ScriptThread: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var stopping = false
    /// Set when the loop has ended: work handed over later runs elsewhere rather than never.
    private var ended = false
    /// The worker; set by the first job, used by every later one, released when the thread ends.
    var worker: ScriptWorker?

    /// Starts the thread (8 MiB of stack: rules nest, and scripts recurse).
    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// Whether the caller is this thread (a snippet's helper evaluating a rule with a snippet).
    ///
    /// Asked through thread-specific storage, not by comparing `pthread_t` values: those are reused once a
    /// thread ends (every engine's runtime has a thread, and tests make hundreds), and a false "yes" ran a
    /// script on a thread JavaScriptCore's watchdog does not watch, where an endless loop was never stopped.
    var isCurrent: Bool {
        pthread_getspecific(Self.ownerKey) == Unmanaged.passUnretained(self).toOpaque()
    }

    /// The thread-specific slot each script thread marks with its `ScriptThread`.
    private static let ownerKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` on the thread and waits for it; runs it inline when already there.
    func run<T>(_ body: () throws(ScriptError) -> T) throws(ScriptError) -> T {
        if isCurrent { return try body() }
        var outcome: Result<T, ScriptError>?
        withoutActuallyEscaping(body) { body in
            let job = Job { outcome = Result { () throws(ScriptError) -> T in try body() } }
            // A thread that has ended runs nothing more: fail rather than wait for ever.
            if enqueue(job) { job.done.wait() }
        }
        guard let outcome else { throw .engineUnavailable("the script thread stopped") }
        return try outcome.get()
    }

    /// Runs `work` on the thread later, without waiting for it (the jobs of tasks that prefer the thread as
    /// their executor). Once the thread has ended, `work` runs on a dispatch thread instead.
    func enqueue(_ work: @escaping @Sendable () -> Void) {
        if !enqueue(Job(work)) { DispatchQueue.global().async(execute: work) }
    }

    /// Ends the thread after the jobs already queued; the worker is released on it.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    /// Queues `job`; false when the thread has ended.
    private func enqueue(_ job: Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !ended else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    private func loop() {
        pthread_setspecific(Self.ownerKey, Unmanaged.passUnretained(self).toOpaque())
        defer { pthread_setspecific(Self.ownerKey, nil) }
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty && stopping {
                ended = true
                condition.unlock()
                break
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.execute()
        }
        worker = nil
    }

    /// One queued piece of work. The caller waits on `done`; the work closure is released before `done` is
    /// signalled, so it never outlives the caller's `withoutActuallyEscaping`.
    private final class Job {
        private var work: (() -> Void)?
        let done = DispatchSemaphore(value: 0)

        init(_ work: @escaping () -> Void) {
            self.work = work
        }

        func execute() {
            perform()
            done.signal()
        }

        private func perform() {
            let work = self.work
            self.work = nil
            work?()
        }
    }
}
