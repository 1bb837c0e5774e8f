import BookRuleEngine
import BookRuleLibrary
import Foundation

extension ServeLibrary {
    // MARK: - Beyond Legado: explore and switch source (reader's `/reader3/` calls)

    /// The books of one explore category (`ruleFindUrl`, an `exploreUrl` category's URL) of a source, page `page`.
    func explore(sourceURL: String, url: String, page: Int) throws(ServeFailure) -> [LegadoSearchBook] {
        try siteWork(listFlights, "explore\n\(sourceURL)\n\(url)\n\(page)") { [self] in
            let engine = try engine(sourceURL: sourceURL)
            let found = try await engine.explore(url: url, page: page)
            return found.results.map { LegadoSearchBook(result: $0, source: engine.source) }
        }
    }

    /// The library's sources from `lastIndex` on that find a book named `name` (the other places one book is
    /// on), searched at once through the one transport, each bounded by `siteSeconds`.
    func sourcesOffering(name: String, from lastIndex: Int) throws(ServeFailure) -> [LegadoSearchBook] {
        let all: [BookSource] = try library { () throws(LibraryError) -> [BookSource] in try self.sources() }
        let chosen = Array(all.dropFirst(max(0, lastIndex)))
        let seconds = siteSeconds
        let makeEngine: @Sendable (BookSource) -> SourceEngine = { [self] source in
            (try? engine(sourceURL: source.url))
                ?? BookFetch(source: source, stack: transport, store: store).engine
        }
        return try siteWork(listFlights, "sources\n\(name)\n\(lastIndex)") { () async throws -> [LegadoSearchBook] in
            let search = MultiSourceSearch(sources: chosen, options: MultiSourceSearch.Options(timeout: .seconds(seconds)),
                                           engine: makeEngine)
            var found: [LegadoSearchBook] = []
            for await outcome in search.results(for: name) {
                guard case .success(let page) = outcome.result else { continue }
                for result in page.results where result.name.trimmingCharacters(in: .whitespaces) == name {
                    found.append(LegadoSearchBook(result: result, source: outcome.source,
                                                  respondTime: Int((outcome.seconds * 1000).rounded())))
                }
            }
            return found
        }
    }

    /// Moves `book` to the source at `sourceURL`, where it is at `newURL`: its page and TOC are read there and the
    /// saved chapters kept where the TOCs align (`LibraryStore.switchSource`).
    func moveBook(_ book: StoredBook, toSource sourceURL: String, url newURL: String) throws(ServeFailure) -> StoredBook {
        let id = try bookWork(sourceURL + "\n" + newURL) { [self] in
            let engine = try engine(sourceURL: sourceURL)
            var info = try await engine.bookInfo(url: newURL)
            if info.name.isEmpty { info.name = book.name }
            let toc = try await engine.toc(of: info)
            guard !toc.chapters.isEmpty else { throw ServeFailure("the table of contents lists no chapters") }
            guard let record = try store.storedSource(url: sourceURL) else { throw ServeFailure("no source \(sourceURL)") }
            _ = try store.switchSource(bookID: book.id, source: record, info: info, chapters: toc.chapters)
            return book.id
        }
        guard let moved = try library({ () throws(LibraryError) in try store.book(id: id) }) else {
            throw ServeFailure("the book was removed while it moved")
        }
        return moved
    }
}
