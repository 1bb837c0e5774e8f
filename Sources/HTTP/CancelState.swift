import CCurl
import Synchronization

/// The cancellation flag of one `send`, set from the task's cancellation handler and read by the transfer thread.
final class CancelState: Sendable {
    private let flag = Atomic<Bool>(false)
    private let handle: CurlHandle

    init(handle: CurlHandle) {
        self.handle = handle
    }

    var isCancelled: Bool { flag.load(ordering: .acquiring) }

    /// Sets the flag and wakes the transfer thread if it is waiting for the network.
    func cancel() {
        flag.store(true, ordering: .releasing)
        curl_multi_wakeup(handle.multi)
    }
}
