/// Why the stored logins cannot be read or written.
public enum LoginVaultError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A file or folder could not be read, written or created: what the system said.
    case unavailable(path: String, reason: String)
    /// The key file exists but is not a private 32-byte file.
    case badKey(path: String, reason: String)
    /// The store does not open under the key (damaged, or written under another key) or is not a store.
    case damaged(path: String, reason: String)

    /// What happened and what the user can do about it.
    public var description: String {
        switch self {
        case .unavailable(let path, let reason):
            return "the stored logins \(path) cannot be used: \(reason)"
        case .badKey(let path, let reason):
            return "the login key \(path) cannot be used: \(reason)"
        case .damaged(let path, let reason):
            return "the stored logins \(path) cannot be read: \(reason); `bookrule logout --all` removes them "
                + "(then log in again)"
        }
    }
}
