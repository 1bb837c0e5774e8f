/// Why the library could not do what was asked: what SQLite said and what bookrule was doing at the time.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another connection (usually another bookrule process) held the write lock for longer than the busy
    /// timeout. Nothing was written by the statement that failed.
    case busy(path: String, purpose: String)
    /// The file exists but is not a bookrule library (not SQLite, or an SQLite database of another program).
    case notALibrary(path: String, reason: String)
    /// The library was written by a newer bookrule whose schema this build does not know.
    case newerSchema(path: String, found: Int, supported: Int)
    /// The directory that should hold the library could not be created.
    case cannotCreateDirectory(path: String, reason: String)
    /// `saveChapter` was given no text: a chapter without text is recorded as failed, never saved.
    case emptyText(bookID: Int64, url: String)
    /// No book with this id is in the library.
    case unknownBook(id: Int64)
    /// The book has no chapter with this URL (its TOC was not merged, or lists other URLs).
    case unknownChapter(bookID: Int64, url: String)
    /// Another book of the library is already stored under this source and book URL, so this one cannot move
    /// there.
    case bookOnSourceExists(bookID: Int64, otherBookID: Int64, sourceURL: String)
    /// Any other SQLite failure: the library file, what bookrule was doing, SQLite's message and result code.
    case sqlite(path: String, purpose: String, code: Int32, message: String)

    /// What happened and what the user can do about it.
    public var description: String {
        switch self {
        case .busy(let path, let purpose):
            return "the library at \(path) is busy: another bookrule process is writing to it; wait for it to "
                + "finish or use another library (while \(purpose))"
        case .notALibrary(let path, let reason):
            return "\(path) is not a bookrule library: \(reason)"
        case .newerSchema(let path, let found, let supported):
            return "the library at \(path) was written by a newer bookrule (schema version \(found); this build "
                + "knows versions up to \(supported)): upgrade bookrule or use another library"
        case .cannotCreateDirectory(let path, let reason):
            return "cannot create the library directory \(path): \(reason)"
        case .emptyText(let bookID, let url):
            return "refusing to save chapter \(url) of book \(bookID) with empty text (record it as failed instead)"
        case .unknownBook(let id):
            return "no book with id \(id) in the library"
        case .unknownChapter(let bookID, let url):
            return "book \(bookID) has no chapter \(url) in the library (merge its table of contents first)"
        case .bookOnSourceExists(let bookID, let otherBookID, let sourceURL):
            return "book \(bookID) cannot move to \(sourceURL): book \(otherBookID) is that source's copy of it "
                + "already (remove one of them with `bookrule library --remove`)"
        case .sqlite(let path, let purpose, let code, let message):
            return "library \(path): \(purpose) failed: \(message) (SQLite error \(code))"
        }
    }
}
