/// Why an RSS source could not give what was asked, beyond the engine's own errors (`EngineError`).
public enum RssError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source has no `ruleArticles`, so its page is read as a feed, and the page is not XML.
    case notAFeed(url: String)
    /// No sort has this name or URL.
    case unknownSort(String, known: [String])
    /// The source lists no sort (its `sortUrl` script gave none).
    case noSorts
    /// The article cannot be read: the source has no `ruleContent` and the article no description.
    case nothingToRead(link: String)

    public var description: String {
        switch self {
        case .notAFeed(let url):
            return "\(url) is not an RSS or Atom feed (the source has no ruleArticles, so its page is read as one); give the source a ruleArticles to read it as a page"
        case .unknownSort(let name, let known):
            let list = known.prefix(20).map { "\"\($0)\"" }.joined(separator: ", ")
            return "the source has no sort called \"\(name)\"" + (known.isEmpty ? "" : "; it has: \(list)")
                + (known.count > 20 ? ", …" : "")
        case .noSorts:
            return "the source lists no sort: its sortUrl gave no name::url entry"
        case .nothingToRead(let link):
            return "\(link): the source has no ruleContent and the article no description to read"
        }
    }
}
