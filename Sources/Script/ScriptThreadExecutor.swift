/// Runs the jobs of tasks on a runtime's `ScriptThread` (see `ScriptRuntime.stepExecutor`).
final class ScriptThreadExecutor: TaskExecutor {
    private let thread: ScriptThread

    init(thread: ScriptThread) {
        self.thread = thread
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        thread.enqueue { job.runSynchronously(on: executor) }
    }
}
