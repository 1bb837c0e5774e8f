/// Why a book has no cover: said as a warning, since the book is complete without one.
public enum CoverError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cover could not be downloaded (not an error status, which simply means there is none).
    case fetchFailed(url: String, reason: String)
    /// What the site sent is not a whole JPEG, PNG or GIF (see `ImageStructure`); it is not kept.
    case notAnImage(url: String, problem: String)

    /// What happened, for the user.
    public var description: String {
        switch self {
        case .fetchFailed(let url, let reason):
            return "the cover \(url) could not be fetched: \(reason)"
        case .notAnImage(let url, let problem):
            return "the cover \(url) is \(problem); the book is exported without a cover"
        }
    }
}
