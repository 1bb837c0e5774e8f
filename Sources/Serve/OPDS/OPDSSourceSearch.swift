import BookRuleEngine
import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import Foundation

/// The catalog's search of the configured sources (`/opds/sources/search?q=`): every enabled source searched at
/// once through the one polite fetcher (as Legado's `searchBook`), each book found offered as an entry whose
/// EPUB and TXT links (`/opds/sources/add`) add it to the shelf, wait for its first chapter, start fetching the
/// rest in the background, and then answer the book's file as it stands (redirected to the shelf book's link).
struct OPDSSourceSearch: Sendable {
    /// Books listed at most.
    static let resultLimit = 100

    /// The library served.
    let library: ServeLibrary

    /// What getting a found book does, as its entry says.
    static let getting = "Getting it adds the book to the shelf and fetches its chapters in the background: the file you get "
        + "at once holds the chapters saved so far (the first at least). The book is then on the shelf under Recently "
        + "updated, where its EPUB and TXT grow to the whole book."

    /// The search's acquisition feed.
    func feed(_ request: HTTPServerRequest) throws(OPDSError) -> OPDSFeed {
        let catalog = OPDSCatalog(library: library)
        let query = try catalog.argument(request, "q").trimmingCharacters(in: .whitespaces)
        let found = try search(query)
        let entries = found.prefix(Self.resultLimit).map { item in
            let result = item.result
            let time = Date(timeIntervalSince1970: Double(item.time) / 1000)
            var arguments = [("origin", item.source.url), ("url", result.bookURL), ("name", result.name)]
            if !result.variables.isEmpty, let variables = try? JSONWriter.bytes(result.variables) {
                arguments.append(("variable", String(decoding: variables, as: UTF8.self)))
            }
            let intro = result.intro.trimmingCharacters(in: .whitespacesAndNewlines)
            let summary = (intro.isEmpty ? "" : intro + "\n\n") + "Found by \(item.source.name). " + Self.getting
            let kinds = result.kind.split(whereSeparator: { $0 == "," || $0 == "，" })
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            return OPDSEntry(
                id: ExportBook.identifier(sourceURL: item.source.url, bookURL: result.bookURL), title: result.name,
                updated: time, authors: [result.author], summary: summary, categories: Array(Set(kinds)).sorted(),
                links: [
                    OPDSLink(rel: OPDSMediaType.acquisitionRelation,
                             href: OPDSCatalog.href("/opds/sources/add", arguments + [("format", "epub")]),
                             type: OPDSMediaType.epub, title: "EPUB (adds the book to the shelf)"),
                    OPDSLink(rel: OPDSMediaType.acquisitionRelation,
                             href: OPDSCatalog.href("/opds/sources/add", arguments + [("format", "txt")]),
                             type: OPDSMediaType.text, title: "TXT (adds the book to the shelf)"),
                ])
        }
        let path = OPDSCatalog.href("/opds/sources/search", [("q", query)])
        return OPDSFeed(id: "urn:bookrule:catalog:sources:search?q=" + OPDSXML.queryValue(query),
                        title: "From the sources: \(query)", kind: .acquisition, updated: Date(),
                        links: catalog.commonLinks(self: path, kind: .acquisition, up: "/opds"), entries: Array(entries),
                        paging: OPDSFeed.Paging(total: entries.count, perPage: Self.resultLimit, startIndex: 1))
    }

    /// The books the enabled sources find for `query`, in the sources' order and each source's, each once;
    /// books whose name is the query first.
    func search(_ query: String) throws(OPDSError) -> [LegadoSearchBook] {
        let sources: [BookSource]
        do {
            sources = try library.sources().filter(ServeSourceCatalog.isEnabled)
        } catch {
            throw .library("\(error)")
        }
        let seconds = library.siteSeconds
        let transport = library.transport
        let library = library
        let found: [LegadoSearchBook]
        do {
            found = try library.siteWork(library.listFlights, "opds\n" + query) { () async throws -> [LegadoSearchBook] in
                // The library's engines for its sources (their scripts' cache, their cookies), as reader's search.
                let search = MultiSourceSearch(sources: sources, options: MultiSourceSearch.Options(timeout: .seconds(seconds))) {
                    (try? library.engine(sourceURL: $0.url)) ?? SourceEngine(source: $0, connection: transport.transport(for: $0))
                }
                var answers: [String: [LegadoSearchBook]] = [:]
                for await outcome in search.results(for: query) {
                    guard case .success(let page) = outcome.result else { continue }
                    answers[outcome.source.url] = page.results.map { LegadoSearchBook(result: $0, source: outcome.source) }
                }
                var seen = Set<String>()
                return sources.flatMap { answers[$0.url] ?? [] }.filter { seen.insert($0.source.url + "\n" + $0.result.bookURL).inserted }
            }
        } catch {
            throw .site(error.description)
        }
        let exact = found.filter { $0.result.name.trimmingCharacters(in: .whitespaces) == query }
        return exact + found.filter { $0.result.name.trimmingCharacters(in: .whitespaces) != query }
    }

    /// `/opds/sources/add`: adds the book (`origin`, `url`, `name`, `variable`) to the shelf, saves its first
    /// chapter, fetches the rest in the background, and sends the client to the shelf book's file (`format`).
    func add(_ request: HTTPServerRequest) throws(OPDSError) -> HTTPServerResponse {
        let catalog = OPDSCatalog(library: library)
        let origin = try catalog.argument(request, "origin")
        let url = try catalog.argument(request, "url")
        let format = request.argument("format") == "txt" ? ExportFormat.txt : .epub
        var fields = ["bookUrl": url, "origin": origin]
        fields["name"] = request.argument("name")
        fields["variable"] = request.argument("variable")
        guard let object = (try? JSONWriter.bytes(fields)).flatMap({ try? JSONParser.parse($0).value.objectValue }) else {
            throw .badArgument(name: "url", reason: "cannot be read")
        }
        let book: StoredBook
        let chapters: [StoredChapter]
        do {
            book = try library.addBook(object)
            chapters = try library.tocChapters(book)
            // The file answered now holds at least the first chapter.
            if let first = chapters.first(where: { !$0.isVolume }) {
                _ = try library.text(of: book, index: first.position)
            }
        } catch {
            throw .site(error.description)
        }
        library.fetchInBackground(chapters, of: book)
        let location = OPDSXML.carrying(OPDSBook.path(book.id) + "." + format.fileExtension, token: request.argument("token"))
        return HTTPServerResponse(status: 303, headers: [("Location", location)])
    }
}
