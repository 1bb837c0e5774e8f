/// Why `XMLTreeNode.parse` read no document.
public enum XMLTreeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not well-formed XML.
    case malformed(reason: String)
    /// The document is larger than the parser reads.
    case tooLarge(bytes: Int, limit: Int)
    /// The document holds more elements than the parser keeps.
    case tooManyElements(limit: Int)
    /// Elements are nested deeper than the parser follows.
    case tooDeep(limit: Int)

    /// What went wrong, for a person.
    public var description: String {
        switch self {
        case .malformed(let reason): return "not well-formed XML: \(reason)"
        case .tooLarge(let bytes, let limit): return "the XML is \(bytes) bytes, more than the \(limit) read"
        case .tooManyElements(let limit): return "the XML has more than \(limit) elements"
        case .tooDeep(let limit): return "the XML nests elements more than \(limit) deep"
        }
    }
}
