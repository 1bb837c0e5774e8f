/// Something that happened to a download task, in the order it happened for that task.
public enum MediaDownloadEvent: Sendable, Hashable {
    /// The task is waiting for a job slot.
    case queued(id: String)
    /// A request is being made, continuing from byte `resumingAt` (0 for a fresh start).
    case started(id: String, resumingAt: Int64)
    /// More bytes arrived (at most about ten of these a second per task).
    case progress(id: String, MediaDownloadProgress)
    /// The partial data was discarded and the download starts again from byte 0; `reason` says why (the file
    /// changed on the server, the server ignored the range, the sidecar was unreadable…).
    case restarted(id: String, reason: String)
    /// An attempt failed and another follows (resuming where the data stopped); `reason` says what failed.
    case retrying(id: String, attempt: Int, reason: String)
    /// The task stopped on request; its partial data is kept.
    case paused(id: String, MediaDownloadProgress)
    /// The file is at `path` and verified; `alreadyPresent` when an earlier run had finished it (nothing was
    /// fetched).
    case completed(id: String, path: String, bytes: Int64, alreadyPresent: Bool)
    /// The task gave up.
    case failed(id: String, MediaDownloadError)

    /// The task the event is about.
    public var id: String {
        switch self {
        case .queued(let id), .started(let id, _), .progress(let id, _), .restarted(let id, _),
             .retrying(let id, _, _), .paused(let id, _), .completed(let id, _, _, _), .failed(let id, _):
            return id
        }
    }
}
