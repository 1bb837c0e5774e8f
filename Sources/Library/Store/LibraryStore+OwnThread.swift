import BookRuleLocking
import BookRuleDocument

extension LibraryStore {
    /// Runs `body` with this store on a thread of its own, for async callers: a library call can wait up to
    /// the busy timeout (5 s) for another process's write, and must not hold one of the cooperative pool's
    /// few threads meanwhile. Runs inline when no thread can be started.
    package func onOwnThread<T: Sendable>(
        _ body: @escaping @Sendable (LibraryStore) throws -> T
    ) async throws -> T {
        let work = { @Sendable () -> Result<T, any Error> in Result { try body(self) } }
        let result = await BlockingWorkThread.run(work) ?? work()
        return try result.get()
    }
}

extension LibraryStore {
    /// Runs `body`, whose reads (`books(url:)`, `tocChapter`, `text`) then never wait for the main connection's
    /// lock: when every read-only connection is in use they fail with `.busy` instead, and `attempt.refused`
    /// says so. For a server's polling thread, which must answer at once or hand the request on.
    public static func readingWithoutWaiting<Value>(_ attempt: NoWaitRead, _ body: () -> Value) -> Value {
        SQLiteDatabase.$noWait.withValue(attempt) { body() }
    }
}
