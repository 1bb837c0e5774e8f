/// Why a picture of a text chapter is not in the library: said as a warning, since the chapter is exported
/// with the picture's URL in its place.
public enum PictureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The picture could not be downloaded; `reason` says why (an error status, a failed transfer, too large).
    case fetchFailed(url: String, reason: String)
    /// What the site sent is not a whole JPEG, PNG or GIF (see `ImageStructure`); it is not kept.
    case notAnImage(url: String, problem: String)

    /// The picture's URL.
    public var url: String {
        switch self {
        case .fetchFailed(let url, _), .notAnImage(let url, _): return url
        }
    }

    /// What happened, for the user.
    public var description: String {
        switch self {
        case .fetchFailed(let url, let reason):
            return "the picture \(url) could not be fetched: \(reason); its URL stands in its place"
        case .notAnImage(let url, let problem):
            return "the picture \(url) is \(problem); its URL stands in its place"
        }
    }
}
