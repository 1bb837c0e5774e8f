/// Why a WebDAV restore, backup or progress sync stopped. The library is unchanged by a restore that throws.
public enum WebDAVSyncError: Error, Sendable, CustomStringConvertible {
    /// The server refused or failed a request.
    case webDAV(WebDAVError)
    /// The backup zip is not one bookrule can read, or could not be made.
    case backup(LegadoBackupError)
    /// The library could not be read or written.
    case library(LibraryError)
    /// The replace rules beside the library could not be read or written.
    case replaceRules(ReplaceRuleError)
    /// Files kept from a backup could not be read or written.
    case keptFiles(path: String, reason: String)
    /// The folder has no `backup*.zip`.
    case noBackup(url: String)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .webDAV(let error): return error.description
        case .backup(let error): return error.description
        case .library(let error): return error.description
        case .replaceRules(let error): return error.description
        case .keptFiles(let path, let reason): return "\(path): \(reason)"
        case .noBackup(let url): return "\(url) holds no backup (no backup*.zip): make one in Legado (我的 → 备份与恢复 → 备份) or with `webdav backup`"
        }
    }
}
