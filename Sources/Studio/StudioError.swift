import BookRuleHTTPServer

/// Why the studio cannot start or cannot do what a request asked, in words a user can act on.
public enum StudioError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The server could not start: it cannot listen, or cannot make a token.
    case server(HTTPServerError)
    /// A folder given for the studio's page files (`BOOKRULE_STUDIO_ASSETS`) lacks one of them.
    case missingAssets(searched: [String])
    /// The source file cannot be read.
    case unreadableSource(path: String, reason: String)

    public var description: String {
        switch self {
        case .server(let error):
            return error.description
        case .missingAssets(let searched):
            return "the studio's page files are missing (looked in \(searched.joined(separator: ", "))); point "
                + "BOOKRULE_STUDIO_ASSETS at the Sources/Studio/Assets directory, or unset it to use the files built in"
        case .unreadableSource(let path, let reason):
            return "cannot read the source \(path): \(reason)"
        }
    }
}
