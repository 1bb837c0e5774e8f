import BookRuleJSON

/// Why a source file could not be read at all.
public enum SourceFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file is not valid JSON.
    case syntax(path: String, error: JSONSyntaxError)
    /// The JSON is neither a source object nor an array of them.
    case notASource(path: String, location: SourceLocation, found: String)
    /// The file holds an empty array.
    case empty(path: String)
    /// The file holds RSS sources (订阅源) only, where book sources were wanted.
    case onlyRssSources(path: String, count: Int)
    /// The file holds no RSS source, where RSS sources were wanted.
    case noRssSources(path: String, bookSources: Int)

    public var description: String {
        switch self {
        case .unreadable(let path, let reason):
            return "\(path): cannot read the file: \(reason)"
        case .syntax(let path, let error):
            return "\(path):\(error.location.line):\(error.location.column): invalid JSON: \(error.message)"
        case .notASource(let path, let location, let found):
            return "\(path):\(location.line):\(location.column): expected a book source object or an array of them, found \(found)"
        case .empty(let path):
            return "\(path): the file holds no book sources (an empty array)"
        case .onlyRssSources(let path, let count):
            return "\(path): the file holds \(count) RSS source(s) (sourceUrl and sourceName) and no book source; read them with bookrule rss --source \(path)"
        case .noRssSources(let path, let bookSources):
            return "\(path): the file holds no RSS source (an object with sourceUrl and sourceName)"
                + (bookSources > 0 ? "; its \(bookSources) book source(s) are read by search, explore, info, toc and chapter" : "")
        }
    }
}
