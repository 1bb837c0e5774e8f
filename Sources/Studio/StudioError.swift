/// Why the studio cannot start or cannot do what a request asked, in words a user can act on.
public enum StudioError: Error, CustomStringConvertible, Sendable, Equatable {
    /// libmicrohttpd could not listen (the port is taken, or not allowed).
    case cannotListen(port: Int)
    /// A folder given for the studio's page files (`BOOKRULE_STUDIO_ASSETS`) lacks one of them.
    case missingAssets(searched: [String])
    /// The source file cannot be read.
    case unreadableSource(path: String, reason: String)
    /// The system's random generator could not give a token.
    case noRandomness(reason: String)

    public var description: String {
        switch self {
        case .cannotListen(let port):
            return port == 0 ? "cannot listen on 127.0.0.1 (no free port?)"
                : "cannot listen on 127.0.0.1:\(port): the port is in use or not allowed; pick another with --port, or 0 for any"
        case .missingAssets(let searched):
            return "the studio's page files are missing (looked in \(searched.joined(separator: ", "))); point "
                + "BOOKRULE_STUDIO_ASSETS at the Sources/Studio/Assets directory, or unset it to use the files built in"
        case .unreadableSource(let path, let reason):
            return "cannot read the source \(path): \(reason)"
        case .noRandomness(let reason):
            return "cannot make an access token: /dev/urandom \(reason)"
        }
    }
}
