/// Why a download task failed, or could not be added.
public enum MediaDownloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server answered `status` (not 200, 206 or a usable 416).
    case httpStatus(url: String, status: Int)
    /// The request failed (connection, timeout, polite-fetcher verdict) `attempts` times; `message` is the last error.
    case transfer(url: String, attempts: Int, message: String)
    /// The finished file has `actual` bytes where `expected` were announced or required.
    case lengthMismatch(path: String, expected: Int64, actual: Int64)
    /// The finished file's SHA-256 is not the one required; the data was discarded.
    case checksumMismatch(path: String, expected: String, actual: String)
    /// Reading or writing a local file failed.
    case file(path: String, reason: String)
    /// The download had to start again from zero `restarts` times in a row (the file keeps changing, or the
    /// server's ranges are inconsistent); `reason` is the last one.
    case tooManyRestarts(url: String, restarts: Int, reason: String)
    /// `add` was given a task whose id or destination another task already has.
    case duplicateTask(id: String, destination: String)
    /// Another process (or task) is downloading to the same file right now: its `.part` file is locked.
    case locked(path: String)
    /// The file is larger than the task's `maximumBytes`.
    case tooLarge(url: String, limit: Int64)

    /// What went wrong and what to try.
    public var description: String {
        switch self {
        case .httpStatus(let url, let status):
            return "\(url) answered HTTP \(status)" + (status == 404 || status == 410
                ? " (the file is not there: check the URL)" : " (try again later)")
        case .transfer(let url, let attempts, let message):
            return "could not download \(url) after \(attempts) attempt(s): \(message) "
                + "(run again to continue; what arrived is kept when the server can resume it)"
        case .lengthMismatch(let path, let expected, let actual):
            return "\(path) has \(actual) bytes, expected \(expected) (the server sent a different file; run again)"
        case .checksumMismatch(let path, let expected, let actual):
            return "\(path) has SHA-256 \(actual), expected \(expected); the download was discarded "
                + "(check the checksum, or the server sends a different file)"
        case .file(let path, let reason):
            return "\(path): \(reason) (check the directory exists, is writable and has free space)"
        case .tooManyRestarts(let url, let restarts, let reason):
            return "\(url) had to restart from zero \(restarts) times (last: \(reason)); the file seems to change "
                + "while it downloads: try again later"
        case .duplicateTask(let id, let destination):
            return "a download with id \(id) or destination \(destination) is already listed"
        case .locked(let path):
            return "\(path) is being downloaded by another bookrule right now (its .part file is locked); "
                + "wait for it to finish, or stop it first"
        case .tooLarge(let url, let limit):
            return "\(url) is larger than \(limit) bytes, the most allowed for this file; it was not kept"
        }
    }
}
