/// Why a file a fixture names was not read; each description names the file and the reason.
public enum FixtureFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name is an absolute path: fixture files are named relative to the fixture directory.
    case absolute(name: String, directory: String)
    /// The name resolves (through `..` or a symbolic link) to `resolved`, outside the fixture directory.
    case outside(name: String, directory: String, resolved: String)
    /// The name is empty or holds a NUL byte.
    case badName(name: String, directory: String)
    /// The file does not exist, cannot be opened, is not a regular file or is too large; `reason` says which.
    case cannotRead(path: String, reason: String)

    /// What was refused and why, naming the path.
    public var description: String {
        switch self {
        case .absolute(let name, let directory):
            return "\(name): refused: an absolute path; a fixture names its files relative to its directory \(directory)"
        case .outside(let name, let directory, let resolved):
            return "\(name): refused: it leads to \(resolved), outside the fixture directory \(directory); only files inside it are read"
        case .badName(let name, let directory):
            return "\"\(name)\": refused: not a file name inside the fixture directory \(directory)"
        case .cannotRead(let path, let reason):
            return "\(path): cannot read: \(reason)"
        }
    }
}
