import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import Foundation

/// The OPDS 1.2 catalog `bookrule serve` answers at `/opds` (docs/serve.md, "OPDS"): a navigation root
/// (recently read, recently updated, by kind, all books), acquisition feeds of 50 books a page, each book's
/// entry, cover, thumbnail, EPUB and TXT, and OpenSearch over the shelf and over the sources. Reached through
/// `LegadoAPI` after `OPDSAccess`; every answer is made on the request's own thread (an EPUB may take a moment).
struct OPDSCatalog: Sendable {
    /// Books in one page of a feed.
    static let pageSize = 50

    /// The library served.
    let library: ServeLibrary

    /// Whether `path` is the catalog's.
    static func serves(_ path: String) -> Bool {
        path == "/opds" || path.hasPrefix("/opds/")
    }

    /// The answer to a `GET` or `HEAD` of a catalog path; other methods are answered 405.
    func answer(_ request: HTTPServerRequest, method: String) -> HTTPServerResponse {
        guard method == "GET" || method == "HEAD" else {
            var refused = HTTPServerResponse.text(405, "the catalog is read with GET (or HEAD)")
            refused.headers.append(("Allow", "GET, HEAD"))
            return refused
        }
        do {
            return try route(request)
        } catch {
            return .text(error.status, error.description)
        }
    }

    private func route(_ request: HTTPServerRequest) throws(OPDSError) -> HTTPServerResponse {
        let path = request.path.hasSuffix("/") && request.path.count > 1 ? String(request.path.dropLast()) : request.path
        switch path {
        case "/opds": return feed(request, try root())
        case "/opds/recent":
            let shelf = try OPDSShelf(store: library.store)
            return feed(request, try page(shelf.recentlyRead, of: request, path: path, title: "Recently read", up: "/opds"))
        case "/opds/updated":
            let shelf = try OPDSShelf(store: library.store)
            return feed(request, try page(shelf.recentlyUpdated, of: request, path: path, title: "Recently updated", up: "/opds"))
        case "/opds/all":
            let shelf = try OPDSShelf(store: library.store)
            return feed(request, try page(shelf.byName, of: request, path: path, title: "All books", up: "/opds"))
        case "/opds/kinds": return feed(request, try kinds())
        case "/opds/kind":
            let name = try argument(request, "name")
            let shelf = try OPDSShelf(store: library.store)
            return feed(request, try page(shelf.books(ofKind: name), of: request, path: path, arguments: [("name", name)],
                                 title: name, up: "/opds/kinds"))
        case "/opds/search":
            let query = try argument(request, "q")
            let shelf = try OPDSShelf(store: library.store)
            return feed(request, try page(shelf.search(query), of: request, path: path, arguments: [("q", query)],
                                 title: "On the shelf: \(query)", up: "/opds"))
        case "/opds/search.xml": return OPDSOpenSearch.shelf.response(request)
        case "/opds/sources/search.xml": return OPDSOpenSearch.sources.response(request)
        case "/opds/sources/search": return feed(request, try OPDSSourceSearch(library: library).feed(request))
        case "/opds/sources/add": return try OPDSSourceSearch(library: library).add(request)
        default: break
        }
        guard path.hasPrefix("/opds/books/") else { throw .notFound(path: path) }
        return try book(path: String(path.dropFirst("/opds/books/".count)), request: request)
    }

    // MARK: - Navigation

    /// The root: the ways into the shelf, and the searches.
    private func root() throws(OPDSError) -> OPDSFeed {
        let shelf = try OPDSShelf(store: library.store)
        let newest = shelf.recentlyUpdated.first?.lastSaved ?? Date(timeIntervalSince1970: 0)
        let lastRead = shelf.recentlyRead.first?.readAt ?? newest
        func way(_ id: String, _ title: String, _ content: String, _ href: String, rel: String, type: String, updated: Date) -> OPDSEntry {
            OPDSEntry(id: "urn:bookrule:catalog:\(id)", title: title, updated: updated, content: content,
                      links: [OPDSLink(rel: rel, href: href, type: type)])
        }
        let entries = [
            way("recent", "Recently read", "\(shelf.recentlyRead.count) books, the one read last first", "/opds/recent",
                rel: "http://opds-spec.org/sort/popular", type: OPDSMediaType.acquisition, updated: lastRead),
            way("updated", "Recently updated", "\(shelf.books.count) books, the one saved to last first", "/opds/updated",
                rel: "http://opds-spec.org/sort/new", type: OPDSMediaType.acquisition, updated: newest),
            way("kinds", "By kind", "\(shelf.kinds.count) kinds", "/opds/kinds",
                rel: "subsection", type: OPDSMediaType.navigation, updated: newest),
            way("all", "All books", "\(shelf.books.count) books by name", "/opds/all",
                rel: "subsection", type: OPDSMediaType.acquisition, updated: newest),
        ]
        return OPDSFeed(id: "urn:bookrule:catalog", title: "bookrule library", kind: .navigation, updated: newest,
                        links: commonLinks(self: "/opds", kind: .navigation, up: nil), entries: entries)
    }

    /// Every kind the books have, each leading to its books.
    private func kinds() throws(OPDSError) -> OPDSFeed {
        let shelf = try OPDSShelf(store: library.store)
        let newest = shelf.recentlyUpdated.first?.lastSaved ?? Date(timeIntervalSince1970: 0)
        let entries = shelf.kinds.map { kind in
            let books = shelf.books(ofKind: kind.name)
            return OPDSEntry(id: "urn:bookrule:catalog:kind:\(OPDSXML.queryValue(kind.name))", title: kind.name,
                             updated: books.map(\.lastSaved).max() ?? newest, content: "\(kind.count) books",
                             links: [OPDSLink(rel: "subsection", href: Self.href("/opds/kind", [("name", kind.name)]),
                                              type: OPDSMediaType.acquisition)])
        }
        return OPDSFeed(id: "urn:bookrule:catalog:kinds", title: "By kind", kind: .navigation, updated: newest,
                        links: commonLinks(self: "/opds/kinds", kind: .navigation, up: "/opds"), entries: entries)
    }

    /// One page (`?page=`, from 1) of `books` as an acquisition feed at `path`, with `next`/`previous`,
    /// `first`/`last` and OpenSearch's counts.
    private func page(_ books: [OPDSBook], of request: HTTPServerRequest, path: String,
                      arguments: [(String, String)] = [], title: String, up: String) throws(OPDSError) -> OPDSFeed {
        var number = 1
        if let given = request.argument("page") {
            guard let parsed = Int(given), parsed >= 1 else { throw .badArgument(name: "page", reason: "must be a page number from 1") }
            number = parsed
        }
        let pages = max(1, (books.count + Self.pageSize - 1) / Self.pageSize)
        guard number <= pages else { throw .badArgument(name: "page", reason: "is past the last page, \(pages)") }
        let slice = books.dropFirst((number - 1) * Self.pageSize).prefix(Self.pageSize)
        func pageHref(_ page: Int) -> String { Self.href(path, arguments + (page == 1 ? [] : [("page", String(page))])) }
        var links = commonLinks(self: pageHref(number), kind: .acquisition, up: up)
        links.append(OPDSLink(rel: "first", href: pageHref(1), type: OPDSMediaType.acquisition))
        links.append(OPDSLink(rel: "last", href: pageHref(pages), type: OPDSMediaType.acquisition))
        if number > 1 { links.append(OPDSLink(rel: "previous", href: pageHref(number - 1), type: OPDSMediaType.acquisition)) }
        if number < pages { links.append(OPDSLink(rel: "next", href: pageHref(number + 1), type: OPDSMediaType.acquisition)) }
        let id = "urn:bookrule:catalog:" + String(Self.href(path, arguments).dropFirst("/opds/".count))
        return OPDSFeed(id: id, title: title, kind: .acquisition,
                        updated: slice.map(\.lastSaved).max() ?? Date(timeIntervalSince1970: 0), links: links,
                        entries: slice.map { $0.entry(store: library.store) },
                        paging: OPDSFeed.Paging(total: books.count, perPage: Self.pageSize,
                                                startIndex: (number - 1) * Self.pageSize + 1))
    }

    /// `self`, `start`, `up` (when given) and the two searches.
    func commonLinks(self href: String, kind: OPDSFeed.Kind, up: String?) -> [OPDSLink] {
        var links = [OPDSLink(rel: "self", href: href, type: kind.mediaType),
                     OPDSLink(rel: "start", href: "/opds", type: OPDSMediaType.navigation, title: "bookrule library")]
        if let up { links.append(OPDSLink(rel: "up", href: up, type: OPDSMediaType.navigation)) }
        links.append(OPDSLink(rel: "search", href: "/opds/search.xml", type: OPDSMediaType.openSearch,
                              title: "Search the shelf"))
        links.append(OPDSLink(rel: "search", href: "/opds/sources/search.xml", type: OPDSMediaType.openSearch,
                              title: "Search the sources"))
        return links
    }

    // MARK: - A book

    /// `/opds/books/ID` (the entry), `ID.epub`, `ID.txt`, `ID/cover`, `ID/thumbnail`.
    private func book(path: String, request: HTTPServerRequest) throws(OPDSError) -> HTTPServerResponse {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let name = parts.first else { throw .notFound(path: "/opds/books/" + path) }
        var idText = String(name)
        var format: ExportFormat?
        for candidate in ExportFormat.allCases where parts.count == 1 && idText.hasSuffix("." + candidate.fileExtension) {
            format = candidate
            idText = String(idText.dropLast(candidate.fileExtension.count + 1))
        }
        guard let id = Int64(idText), id > 0 else { throw .unknownBook(id: idText) }
        let stored: StoredBook?
        do {
            stored = try library.store.book(id: id)
        } catch {
            throw .library("\(error)")
        }
        guard let stored else { throw .unknownBook(id: idText) }
        let coverPath = library.store.coverPath(bookID: id)
        if parts.count == 2 {
            switch parts[1] {
            case "cover":
                guard let bytes = try? LocalFile.readRegularFile(coverPath, limit: OPDSShelf.coverLimit),
                      let type = ExportCover(bytes: bytes).epubMediaType else { throw .notFound(path: "/opds/books/" + path) }
                return HTTPServerResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-cache")], body: bytes)
            case "thumbnail":
                return ServedPicture.cover(try? LocalFile.readRegularFile(coverPath, limit: OPDSShelf.coverLimit))
            default: throw .notFound(path: "/opds/books/" + path)
            }
        }
        if let format {
            let rules: ReplaceRuleSet
            do {
                rules = try library.replaceRules()
            } catch {
                throw .library(error.description)
            }
            let file = try OPDSBookFile.make(for: stored, format: format, store: library.store, rules: rules)
            let contentType = format == .epub ? OPDSMediaType.epub : "text/plain; charset=utf-8"
            return OPDSFileAnswer.response(for: file, request: request, fileName: "\(stored.name).\(format.fileExtension)",
                                           plainName: "book-\(stored.id).\(format.fileExtension)",
                                           contentType: contentType)
        }
        let shelf = try OPDSShelf(store: library.store)
        guard let listed = shelf.books.first(where: { $0.book.id == id }) else { throw .unknownBook(id: idText) }
        var entry = listed.entry(store: library.store)
        entry.links.append(OPDSLink(rel: "up", href: "/opds/all", type: OPDSMediaType.acquisition))
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + entry.xml(root: true, token: request.argument("token"))
        return HTTPServerResponse(status: 200, headers: [("Content-Type", OPDSMediaType.entry + ";charset=utf-8")],
                                  body: Array(text.utf8))
    }

    // MARK: - Pieces

    /// A feed's answer to `request` (its links carry the request's `?token=`, if any).
    func feed(_ request: HTTPServerRequest, _ feed: OPDSFeed) -> HTTPServerResponse {
        HTTPServerResponse(status: 200, headers: [("Content-Type", feed.kind.mediaType + ";charset=utf-8"),
                                                  ("Cache-Control", "no-cache")], body: feed.xml(token: request.argument("token")))
    }

    /// A query argument that must be there and not blank.
    func argument(_ request: HTTPServerRequest, _ name: String) throws(OPDSError) -> String {
        guard let value = request.argument(name), !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .badArgument(name: name, reason: "is missing")
        }
        guard value.utf8.count <= 1024 else { throw .badArgument(name: name, reason: "is longer than 1024 bytes") }
        return value
    }

    /// `path` with `arguments` as its query, percent-encoded.
    static func href(_ path: String, _ arguments: [(String, String)]) -> String {
        guard !arguments.isEmpty else { return path }
        return path + "?" + arguments.map { "\($0.0)=\(OPDSXML.queryValue($0.1))" }.joined(separator: "&")
    }
}
