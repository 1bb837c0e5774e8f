/// Why the shared host state (`HostTurnStore`) cannot be used. The fetcher then paces within its own process
/// only; the message says so and what to do.
public enum HostStateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened, read or written: `reason` says what SQLite or the file system said.
    case unavailable(path: String, reason: String)
    /// Another process held the file's lock for longer than the busy timeout.
    case locked(path: String)
    /// The file is not a host-state file this build can read (another program's, damaged, or newer).
    case unreadable(path: String, reason: String)

    /// What happened and what the user can do about it.
    public var description: String {
        switch self {
        case .unavailable(let path, let reason):
            return "the shared host state \(path) cannot be used (\(reason)); pacing within this process only"
        case .locked(let path):
            return "the shared host state \(path) stayed locked by another process; pacing within this process only"
        case .unreadable(let path, let reason):
            return "the shared host state \(path) is unreadable (\(reason)); pacing within this process only "
                + "(delete the file to start it afresh)"
        }
    }

    /// The error users see for a failure of the SQLite layer on the host-state file.
    static func from(_ error: LibraryError, path: String) -> HostStateError {
        switch error {
        case .busy:
            return .locked(path: path)
        case .notALibrary(_, let reason):
            return .unreadable(path: path, reason: reason)
        case .newerSchema(_, let found, let supported):
            return .unreadable(path: path, reason: "written by a newer bookrule (version \(found), this build knows \(supported))")
        case .cannotCreateDirectory(let directory, let reason):
            return .unavailable(path: path, reason: "cannot create \(directory): \(reason)")
        case .sqlite(_, let purpose, _, let message):
            return .unavailable(path: path, reason: "\(purpose): \(message)")
        default:
            return .unavailable(path: path, reason: error.description)
        }
    }
}
