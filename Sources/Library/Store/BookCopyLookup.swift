import BookRuleEngine

/// Finds books of the library on other sources and records the copies that are certainly the same book as
/// known sources of it, without switching (`bookrule sources BOOK --add FILE`, `--find DIR`); and, for
/// `fetch --search --sources`, shelves a book found on several sources with its certain copies as mirrors.
///
/// A copy is read (book page and whole TOC) and judged by `CopyCertainty` against the book's listed chapters;
/// only a certain one is recorded. The engines come from `engine`, so every request goes through the one
/// polite fetcher.
public struct BookCopyLookup: Sendable {
    /// Where the books are.
    public let store: LibraryStore
    /// Makes the engine for a source.
    public let engine: @Sendable (BookSource) -> SourceEngine

    /// A lookup in `store` whose engines `engine` makes.
    public init(store: LibraryStore, engine: @escaping @Sendable (BookSource) -> SourceEngine) {
        self.store = store
        self.engine = engine
    }

    /// What `find` did with one source that lists the book.
    public struct Finding: Sendable {
        /// The source's name.
        public var sourceName: String
        /// The source's `bookSourceUrl`.
        public var sourceURL: String
        /// The book's page there.
        public var bookURL: String
        /// The alignment with the book's chapters, when its TOC could be read.
        public var certainty: CopyCertainty?
        /// Why it was not recorded; nil when it was.
        public var rejection: String?
    }

    /// What `find` did over a collection.
    public struct FindReport: Sendable {
        /// Sources searched.
        public var searched: Int
        /// Copies recorded or rejected, in collection order.
        public var findings: [Finding]
        /// Sources whose search failed, with why.
        public var failures: [(sourceName: String, failure: SearchFailure)]
        /// Sources that answered without listing the book.
        public var notListing: Int
        /// Sources skipped because the book is on them already (its current source).
        public var current: Int
    }

    /// The book's listed chapters as the reference a copy is judged against.
    func reference(bookID: Int64) async throws -> [(title: String, isVolume: Bool)] {
        try await store.onOwnThread { try $0.chapters(bookID: bookID) }.filter(\.inTOC).map { (title: $0.title, isVolume: $0.isVolume) }
    }

    /// Book `book` on `source`: at `bookURL` (with `variables`), or the search result for its name with the same
    /// `BookIdentity`; read and judged against its listed chapters. Throws `BookCopyError.notListed` when the
    /// search finds no such book, `.emptyTOC`, and what the engine throws.
    public func copy(of book: StoredBook, on source: BookSource, bookURL: String? = nil,
                     variables: [String: String] = [:]) async throws -> BookCopy {
        let engine = engine(source)
        var url = bookURL
        var variables = variables
        if url == nil {
            let page = try await engine.search(key: book.name)
            guard let found = BookCopy.pick(page.results, name: book.name, author: book.author) else {
                throw BookCopyError.notListed(sourceName: source.name, name: book.name, author: book.author,
                                              results: page.results.count)
            }
            url = found.bookURL
            variables = found.variables
        }
        return try await BookCopy.read(engine: engine, bookURL: url ?? "", variables: variables,
                                       reference: try await reference(bookID: book.id))
    }

    /// Records `copy` as a known source of book `bookID` (the book stays on its current source), with its TOC
    /// length and newest chapter. Throws `BookCopyError.uncertain` when the copy is not certainly the book.
    public func record(_ copy: BookCopy, bookID: Int64) async throws {
        if let reason = copy.certainty.reason { throw BookCopyError.uncertain(sourceName: copy.source.name, reason: reason) }
        try await store.onOwnThread {
            try $0.recordSource(bookID: bookID, source: copy.record, bookURL: copy.info.url, variables: copy.info.variables,
                                tocLength: copy.chapters.count, latestChapter: copy.latestChapter)
        }
    }

    /// Searches `sources` for book `book` (its name; `MultiSourceSearch` with `options`), reads every copy the
    /// search groups with it (same `BookIdentity`; not its current source) and records those that are certain.
    public func find(_ book: StoredBook, in sources: [BookSource],
                     options: MultiSourceSearch.Options = .init()) async throws -> FindReport {
        let search = MultiSourceSearch(sources: sources, options: options, engine: engine)
        var list = FoundBookList()
        for await outcome in search.results(for: book.name) { list.add(outcome) }
        let found = list.books.first { $0.identity == BookIdentity(name: book.name, author: book.author) }
            ?? list.books.first { $0.identity.name == BookIdentity(name: book.name, author: "").name && $0.identity.author.isEmpty }
        let copies = (found?.copies ?? []).filter { $0.sourceURL != book.sourceURL }
        let current = (found?.copies.count ?? 0) - copies.count
        let reference = try await reference(bookID: book.id)
        let byURL = Dictionary(sources.map { ($0.url, $0) }, uniquingKeysWith: { first, _ in first })
        // Copies are read side by side (at most `options.concurrency` at once; each host still paced by the one
        // fetcher), and reported in the order the search grouped them.
        let readable = copies.compactMap { copy in byURL[copy.sourceURL].map { (copy: copy, source: $0) } }
        var findings = [Finding?](repeating: nil, count: readable.count)
        try await withThrowingTaskGroup(of: (Int, Finding).self) { group in
            var next = 0
            func start() {
                guard next < readable.count else { return }
                let (index, (copy, source)) = (next, readable[next])
                next += 1
                group.addTask { (index, try await judge(copy, on: source, bookID: book.id, reference: reference)) }
            }
            for _ in 0..<max(1, options.concurrency) { start() }
            for try await (index, finding) in group {
                findings[index] = finding
                start()
            }
        }
        return FindReport(searched: sources.count, findings: findings.compactMap { $0 },
                          failures: list.failures.map { ($0.source.name, $0.failure) },
                          notListing: list.sourcesDone - list.failures.count - (found?.copies.count ?? 0), current: current)
    }

    /// `copy` (a search result on `source`) read, judged against `reference` and recorded for book `bookID` when
    /// certain; why not, when not. Only cancellation is thrown.
    private func judge(_ copy: FoundBook.Copy, on source: BookSource, bookID: Int64,
                       reference: [(title: String, isVolume: Bool)]) async throws -> Finding {
        var finding = Finding(sourceName: copy.sourceName, sourceURL: copy.sourceURL, bookURL: copy.bookURL)
        do {
            let read = try await BookCopy.read(engine: engine(source), bookURL: copy.bookURL, variables: copy.variables,
                                               reference: reference)
            finding.bookURL = read.info.url
            finding.certainty = read.certainty
            finding.rejection = read.certainty.reason
            if finding.rejection == nil { try await record(read, bookID: bookID) }
        } catch {
            if Task.isCancelled || error is CancellationError { throw CancellationError() }
            if finding.rejection == nil { finding.rejection = "\(error)" }
        }
        return finding
    }

    /// What `shelve` made of a book found on several sources.
    public struct Shelved: Sendable {
        /// The book as the library now holds it (on the copy it is fetched from, its TOC merged).
        public var book: StoredBook
        /// The copy it is fetched from.
        public var copy: BookCopy
        /// Other copies recorded as its known sources (mirrors and fallbacks), in collection order.
        public var mirrors: [BookCopy]
        /// Copies not recorded, with why (unreadable, not certain, past the `mirrors` limit not counted).
        public var rejected: [(sourceName: String, reason: String)]
    }

    /// Puts `found` (a book a `MultiSourceSearch` grouped, `FoundBookList`) in the library: its copies are read
    /// in the order of `sources` (the collection's order; a copy the library holds as a book already first); the first whose book page and TOC can be read is
    /// the book's source (its TOC merged), and up to `mirrors` of the others whose alignment with it is certain
    /// are recorded as known sources, for `BookFetch`'s fallback and `--mirrors`. Throws the first copy's error
    /// when none can be read.
    public func shelve(_ found: FoundBook, sources: [BookSource], mirrors: Int) async throws -> Shelved {
        let order = Dictionary(sources.enumerated().map { ($0.element.url, $0.offset) }, uniquingKeysWith: { first, _ in first })
        // A copy the library holds as a book already comes first, so a second run resumes that book rather
        // than shelving the same book again from another source.
        let shelved = Set(try await store.onOwnThread { try $0.books() }.map { "\($0.sourceURL)\n\($0.url)" })
        let held = { (copy: FoundBook.Copy) in shelved.contains("\(copy.sourceURL)\n\(copy.bookURL)") }
        let copies = found.copies.filter { order[$0.sourceURL] != nil }.sorted { first, second in
            held(first) != held(second) ? held(first) : order[first.sourceURL] ?? 0 < order[second.sourceURL] ?? 0
        }
        var rejected: [(sourceName: String, reason: String)] = []
        var best: BookCopy?
        var firstError: (any Error)?
        var others: [BookCopy] = []
        for copy in copies {
            guard let index = order[copy.sourceURL] else { continue }
            if best != nil, others.count >= mirrors { break }
            do {
                let read = try await BookCopy.read(engine: engine(sources[index]), bookURL: copy.bookURL, variables: copy.variables,
                                                   reference: best?.chapters.map { (title: $0.title, isVolume: $0.isVolume) } ?? [])
                guard best != nil else {
                    best = read
                    continue
                }
                if let reason = read.certainty.reason {
                    rejected.append((copy.sourceName, reason))
                } else {
                    others.append(read)
                }
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
                firstError = firstError ?? error
                rejected.append((copy.sourceName, "\(error)"))
            }
        }
        guard var best else { throw firstError ?? BookCopyError.nothingFound(keyword: found.name, sources: 0) }
        if best.info.name.isEmpty { best.info.name = found.name }
        let chosen = best
        let mirrored = others
        let book = try await store.onOwnThread { store in
            let book = try store.upsertBook(source: chosen.record, info: chosen.info)
            try store.mergeTOC(bookID: book.id, chapters: chosen.chapters)
            try store.recordSource(bookID: book.id, source: chosen.record, bookURL: chosen.info.url, variables: chosen.info.variables,
                                   tocLength: chosen.chapters.count, latestChapter: chosen.latestChapter)
            for mirror in mirrored {
                try store.recordSource(bookID: book.id, source: mirror.record, bookURL: mirror.info.url,
                                       variables: mirror.info.variables, tocLength: mirror.chapters.count,
                                       latestChapter: mirror.latestChapter)
            }
            return try store.book(id: book.id) ?? book
        }
        return Shelved(book: book, copy: chosen, mirrors: mirrored, rejected: rejected)
    }
}
