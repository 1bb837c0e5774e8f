/// Where a download task stands.
public enum MediaDownloadState: Sendable, Hashable, CustomStringConvertible {
    /// Waiting for a free job slot (or for its host to be free).
    case queued
    /// Transferring (or waiting for its host's turn in the polite fetcher).
    case running
    /// Stopped on request; the partial data and its sidecar are kept for `resume`.
    case paused
    /// The file is at its destination and verified.
    case completed
    /// Gave up; `reason` says why. Partial data is kept when it can still be continued.
    case failed(reason: String)

    /// `queued`, `running`, `paused`, `completed` or `failed: reason`.
    public var description: String {
        switch self {
        case .queued: return "queued"
        case .running: return "running"
        case .paused: return "paused"
        case .completed: return "completed"
        case .failed(let reason): return "failed: \(reason)"
        }
    }
}
