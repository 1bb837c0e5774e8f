/// Why the OPDS catalog could not answer a request, with the HTTP status it is answered with; the description
/// is the plain-text body an e-reader shows.
enum OPDSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such page of the catalog.
    case notFound(path: String)
    /// No book with this id on the shelf (removed, or a link from another library).
    case unknownBook(id: String)
    /// The book has no chapter saved, so there is nothing to put in a file yet.
    case noSavedChapters(title: String)
    /// A query argument the page needs is missing or unusable.
    case badArgument(name: String, reason: String)
    /// The library could not be read or written.
    case library(String)
    /// The book's file could not be built or kept.
    case export(String)
    /// A site step (a search, adding a book) failed or took too long.
    case site(String)

    /// The HTTP status the failure is answered with.
    var status: Int {
        switch self {
        case .notFound, .unknownBook, .noSavedChapters: 404
        case .badArgument: 400
        case .library, .export: 500
        case .site: 502
        }
    }

    var description: String {
        switch self {
        case .notFound(let path): "the catalog has no page \(path); start at /opds"
        case .unknownBook(let id): "no book \(id) on the shelf (it may have been removed); go back to /opds"
        case .noSavedChapters(let title):
            "no chapter of \(title) is saved yet: read it in a client of bookrule serve, or run bookrule update, then try again"
        case .badArgument(let name, let reason): "the argument \(name) \(reason)"
        case .library(let reason): "the library cannot be read: \(reason)"
        case .export(let reason): "the book's file cannot be made: \(reason)"
        case .site(let reason): "the site did not give the book: \(reason)"
        }
    }
}
