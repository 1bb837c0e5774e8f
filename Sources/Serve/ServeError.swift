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
    /// The server started beside the HTTP one (the WebSocket server) could not start.
    case companion(String)

    public var description: String {
        switch self {
        case .server(let error): return error.description
        case .library(let error): return error.description
        case .unreadableSources(let problems): return "cannot read the sources: " + problems.joined(separator: "; ")
        case .noWebDirectory(let path): return "the web client folder \(path) does not exist or is not a folder"
        case .badListenAddress(let text):
            return "--listen takes an IPv4 or IPv6 address (127.0.0.1, ::1, 0.0.0.0, ::), not \"\(text)\""
        case .companion(let reason): return "cannot start the WebSocket server: \(reason)"
        }
    }
}
