import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary

extension LegadoAPI {
    // MARK: - Beyond Legado: reader's `/reader3/` calls

    /// reader (hectorqin/reader) serves Legado's API under `/reader3/` and adds calls of its own; their
    /// parameters come as query arguments or as members of a JSON body.
    func reader3(_ request: HTTPServerRequest, name: String) throws(ServeFailure) -> HTTPServerResponse? {
        switch name {
        case "exploreBook": return try exploreBook(request)
        case "searchBookSource": return try searchBookSource(request)
        case "setBookSource": return try setBookSource(request)
        default: return nil
        }
    }

    /// A parameter from the query, else from the JSON body.
    private func parameter(_ request: HTTPServerRequest, _ name: String) -> String? {
        if let value = request.argument(name) { return value }
        guard !request.body.isEmpty, let member = (try? objectBody(request))?[name]?.value else { return nil }
        return member.stringValue ?? (member.intValue.map(String.init))
    }

    private func required(_ request: HTTPServerRequest, _ name: String) throws(ServeFailure) -> String {
        guard let value = parameter(request, name), !value.isEmpty else { throw ServeFailure("give \(name)") }
        return value
    }

    /// `exploreBook` (`bookSourceUrl`, `ruleFindUrl`, `page`): one explore category's books as `SearchBook`s.
    func exploreBook(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let books = try library.explore(sourceURL: try required(request, "bookSourceUrl"), url: try required(request, "ruleFindUrl"),
                                        page: parameter(request, "page").flatMap { Int($0) } ?? 1)
        return LegadoEnvelope.success(LegadoJSON.array(books.map(\.json)))
    }

    /// `searchBookSource` (`name`, or `url` of a library book; `lastIndex`): the sources, from `lastIndex` on,
    /// that find a book of that name, as `SearchBook`s.
    func searchBookSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        var name = parameter(request, "name") ?? ""
        if name.isEmpty, let url = parameter(request, "url") { name = try library.book(url: url).name }
        guard !name.isEmpty else { throw ServeFailure("give name, or the url of a book of the library") }
        let books = try library.sourcesOffering(name: name, from: parameter(request, "lastIndex").flatMap { Int($0) } ?? 0)
        return LegadoEnvelope.success(LegadoJSON.array(books.map(\.json)))
    }

    /// `setBookSource` (`bookUrl` or `name` of a library book, `bookSourceUrl`, `newUrl`): the book moved to that
    /// source, saved chapters kept where the TOCs align; answers the book.
    func setBookSource(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let book: StoredBook
        if let url = parameter(request, "bookUrl") {
            book = try library.book(url: url)
        } else {
            let name = try required(request, "name")
            let books = try library.library { () throws(LibraryError) in try library.store.books() }
            guard let named = books.first(where: { $0.name == name }) else { throw ServeFailure("no book \(name) in the library") }
            book = named
        }
        let moved = try library.moveBook(book, toSource: try required(request, "bookSourceUrl"), url: try required(request, "newUrl"))
        let chapters = try library.tocChapters(moved)
        let progress = try library.library { () throws(LibraryError) in try library.store.readingProgress()[moved.id] }
        return LegadoEnvelope.success(LegadoBook(book: moved, progress: progress, tocLength: chapters.count,
                                                 latestChapterTitle: chapters.last(where: { !$0.isVolume })?.title,
                                                 type: 0b1000).json)
    }
}
