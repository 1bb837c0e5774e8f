import BookRuleHTTPServer
import BookRuleLibrary

/// Why `bookrule serve` cannot start, in words a user can act on.
public enum ServeError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The HTTP server cannot listen, or no token can be made.
    case server(HTTPServerError)
    /// The library cannot be opened or written.
    case library(LibraryError)
    /// A `--sources` file or folder cannot be read; `problems` says which and why.
    case unreadableSources(problems: [String])
    /// The `--web` folder does not exist or is not a folder.
    case noWebDirectory(path: String)
    /// The `--listen` value is not an IPv4 or IPv6 address.
    case badListenAddress(String)
    /// The second port (PORT+1, where Legado's web client opens its WebSockets) could not be listened on.
    case secondPort(String)

    public var description: String {
        switch self {
        case .server(let error): return error.description
        case .library(let error): return error.description
        case .unreadableSources(let problems): return "cannot read the sources: " + problems.joined(separator: "; ")
        case .noWebDirectory(let path): return "the web client folder \(path) does not exist or is not a folder"
        case .badListenAddress(let text):
            return "--listen takes an IPv4 or IPv6 address (127.0.0.1, ::1, 0.0.0.0, ::), not \"\(text)\""
        case .secondPort(let reason):
            return "cannot listen on the port after --port as well (Legado's web client opens its WebSockets there): \(reason)"
        }
    }
}
