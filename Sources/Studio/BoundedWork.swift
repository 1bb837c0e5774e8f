import Dispatch
import Synchronization

/// Runs async work for a request handler (which runs on a libmicrohttpd connection thread, not on the
/// cooperative pool) and waits for it at most `seconds`: a site or script that never answers costs the
/// request a 503, and the work is cancelled, rather than holding the connection for good.
enum BoundedWork {
    static func run<Value: Sendable>(seconds: Double, _ work: @escaping @Sendable () async -> Value) -> Value? {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Value?>(nil)
        let task = Task {
            let value = await work()
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else {
            task.cancel()
            return nil
        }
        return result.withLock { $0 }
    }
}
