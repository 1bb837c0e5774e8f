/// Why a page could not be turned into a document.
public enum DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The charset to decode with is unknown to this machine.
    case charset(CharsetError)
    /// libxml2 returned no document at all (it recovers from almost anything, so this is rare).
    case unparsable(url: String)

    public var description: String {
        switch self {
        case .charset(let error): return error.description
        case .unparsable(let url): return "the page at \(url) could not be parsed as HTML"
        }
    }
}
