import BookRuleEngine
import BookRuleJSON
import BookRuleLibrary
import BookRuleLocking
import Foundation

/// What `bookrule serve` reads and changes: the library's books, chapters, sources and reading progress, the
/// replace rules beside it, and the site through the one transport stack, every chapter fetch single-flight.
/// Calls block the calling thread (a server connection thread); site work waits at most `siteSeconds`.
package final class ServeLibrary: Sendable {
    /// The library.
    package let store: LibraryStore
    /// What every site request goes through (the one polite fetcher when live).
    package let transport: TransportStack
    /// How long a request waits for a site step (book page, TOC, chapter) before it gives up (the step goes on).
    let siteSeconds: Double
    /// The site work running (the flights below and background fetch runs), which a stopping server waits for:
    /// a chapter being saved is finished.
    let siteWork = WorkInFlight()
    /// Chapter fetches in flight, by book id and TOC position.
    let chapterFlights: SingleFlight<ChapterKey, Result<String, ServeFailure>>
    /// Table-of-contents and book-page fetches in flight, by book URL.
    let bookFlights: SingleFlight<String, Result<Int64, ServeFailure>>
    /// Explore and search pages being read (`/reader3/` calls), by source, URL or name and page.
    let listFlights: SingleFlight<String, Result<[LegadoSearchBook], ServeFailure>>
    /// Fetches (an engine and what fetches covers) by source URL, with the JSON they were built from (a saved
    /// edit builds a new one).
    private let fetches = Locked<[String: (json: String, fetch: BookFetch)]>([:])
    /// How many chapters after the one read are fetched in the background (0: none).
    let prefetchCount: Int
    /// Told the id of each book whose progress a client saved (`--webdav` writes it to the server).
    let progressSaved = Locked<(@Sendable (Int64) -> Void)?>(nil)
    /// The chapters still to fetch in the background, by book; a book is in the table while its one background
    /// run lasts, and a reader moving on adds to the run's queue.
    private let prefetchQueues = Locked<[Int64: [StoredChapter]]>([:])
    /// Set when the server stops: background fetches start no new chapter.
    private let stopping = Locked(false)
    /// Serialises the read-modify-write of the replace rules file.
    private let rulesLock = Locked<Void>(())
    /// The replace rules beside the library.
    let rulesFile: ReplaceRuleFile

    struct ChapterKey: Hashable, Sendable {
        let bookID: Int64
        let index: Int
    }

    /// Serves `store` through `transport`.
    package init(store: LibraryStore, transport: TransportStack, siteSeconds: Double = 60, prefetchCount: Int = 0) {
        self.store = store
        rulesFile = ReplaceRuleFile(libraryPath: store.path)
        self.transport = transport
        self.siteSeconds = siteSeconds
        self.prefetchCount = max(0, prefetchCount)
        chapterFlights = SingleFlight(countingIn: siteWork)
        bookFlights = SingleFlight(countingIn: siteWork)
        listFlights = SingleFlight(countingIn: siteWork)
    }

    /// The server is stopping: background fetches start no new chapter, and the site work running is cancelled
    /// (its waits end; a chapter being saved is saved).
    func beginStopping() {
        stopping.withLock { $0 = true }
        chapterFlights.cancelAll()
        bookFlights.cancelAll()
        listFlights.cancelAll()
    }

    // MARK: - Sources

    /// Every enabled and disabled source the library keeps, compiled (a source that no longer loads is skipped).
    package func sources() throws(LibraryError) -> [BookSource] {
        try store.storedSources().compactMap { try? BookSource.load(bytes: Array($0.json.utf8), path: $0.sourceName).first }
    }

    /// Imports the sources of `collection` into the library's sources table, and its RSS sources into theirs.
    func importSources(_ collection: SourceCollection) throws(LibraryError) {
        try store.saveSources(collection.sources.map(Self.record))
        if !collection.rssSources.isEmpty {
            try store.saveRssSources(collection.rssSources.map { source in
                RssSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())
            })
        }
    }

    /// A source as the library keeps it: its JSON object as written, in its order.
    static func record(_ source: BookSource) -> BookSourceRecord {
        BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())
    }

    /// The engine for the source at `url`, through the shared transport.
    func engine(sourceURL url: String) throws(ServeFailure) -> SourceEngine {
        try fetch(sourceURL: url).engine
    }

    /// Books of the source at `url` fetched through the shared transport (its engine, covers, pictures).
    func fetch(sourceURL url: String) throws(ServeFailure) -> BookFetch {
        let record: BookSourceRecord?
        do {
            record = try store.storedSource(url: url)
        } catch {
            throw ServeFailure("\(error)")
        }
        guard let record else { throw ServeFailure("未找到书源 (no source \(url) in the library)") }
        if let cached = fetches.withLock({ $0[url] }), cached.json == record.json { return cached.fetch }
        let source: BookSource
        do {
            guard let first = try BookSource.load(bytes: Array(record.json.utf8), path: record.sourceName).first else {
                throw ServeFailure("the source \(url) is empty")
            }
            source = first
        } catch let failure as ServeFailure {
            throw failure
        } catch {
            throw ServeFailure("the source \(url) cannot be read: \(error)")
        }
        let fetch = BookFetch(source: source, stack: transport, store: store)
        fetches.withLock { $0[url] = (record.json, fetch) }
        return fetch
    }

    // MARK: - Books

    /// The book a client names by its `bookUrl` (and `origin`, when given: one URL may be on two sources); its
    /// chapter counts are not read (0).
    func book(url: String, origin: String? = nil) throws(ServeFailure) -> StoredBook {
        let books = try library { () throws(LibraryError) in try store.books(url: url, counting: false) }
        guard let book = books.first(where: { $0.sourceURL == origin }) ?? books.first else {
            throw ServeFailure("未在数据库找到对应书籍，请先添加 (no book \(url) in the library)")
        }
        return book
    }

    /// The chapters the book's TOC lists, in order (their positions are Legado's chapter indexes).
    func tocChapters(_ book: StoredBook) throws(ServeFailure) -> [StoredChapter] {
        try library { () throws(LibraryError) in try store.chapters(bookID: book.id) }.filter(\.inTOC)
    }

    /// Reads the book's whole TOC again and merges it into the library; one read per book at a time.
    func refreshTOC(_ book: StoredBook) throws(ServeFailure) {
        _ = try bookWork(book.sourceURL + "\n" + book.url) { [self] in
            let engine = try engine(sourceURL: book.sourceURL)
            let toc = try await engine.toc(url: book.tocURL.isEmpty ? book.url : book.tocURL, variables: book.variables)
            guard !toc.chapters.isEmpty else { throw ServeFailure("the table of contents lists no chapters") }
            try store.mergeTOC(bookID: book.id, chapters: toc.chapters)
            return book.id
        }
    }

    /// Adds a book a search found (Legado's `SearchBook`/`Book` JSON: `bookUrl`, `origin`, `name`, `variable`…):
    /// reads its page and TOC through its source and saves both; a book already in the library is kept as it is.
    func addBook(_ object: JSONObject) throws(ServeFailure) -> StoredBook {
        guard let url = object["bookUrl"]?.value.stringValue, !url.isEmpty,
              let origin = object["origin"]?.value.stringValue, !origin.isEmpty else {
            throw ServeFailure("格式不对 (the book needs bookUrl and origin)")
        }
        if let existing = try? book(url: url, origin: origin), existing.sourceURL == origin { return existing }
        let name = object["name"]?.value.stringValue ?? ""
        let variables = object["variable"]?.value.stringValue.flatMap {
            try? JSONDecoder().decode([String: String].self, from: Data($0.utf8))
        } ?? [:]
        let id = try bookWork(origin + "\n" + url) { [self] in
            let engine = try engine(sourceURL: origin)
            var info = try await engine.bookInfo(url: url, variables: variables)
            if info.name.isEmpty { info.name = name }
            guard !info.name.isEmpty else { throw ServeFailure("the book page gives no name") }
            let toc = try await engine.toc(of: info)
            guard !toc.chapters.isEmpty else { throw ServeFailure("the table of contents lists no chapters") }
            guard let record = try store.storedSource(url: origin) else { throw ServeFailure("no source \(origin)") }
            let stored = try store.upsertBook(source: record, info: info)
            try store.mergeTOC(bookID: stored.id, chapters: toc.chapters)
            return stored.id
        }
        guard let stored = try library({ () throws(LibraryError) in try store.book(id: id) }) else {
            throw ServeFailure("the book was removed while it was added")
        }
        return stored
    }

    /// Runs site work for one book (`key`) single-flight and waits for it at most `siteSeconds`; its error,
    /// or the wait running out, is the failure thrown.
    func bookWork(_ key: String, _ work: @escaping @Sendable () async throws -> Int64) throws(ServeFailure) -> Int64 {
        try siteWork(bookFlights, key, work)
    }

    /// Runs site work in `flights` under `key` (joining the same work already running) and waits for it at most
    /// `siteSeconds`; its error, or the wait running out, is the failure thrown.
    func siteWork<Value: Sendable>(_ flights: SingleFlight<String, Result<Value, ServeFailure>>, _ key: String,
                                   _ work: @escaping @Sendable () async throws -> Value) throws(ServeFailure) -> Value {
        let outcome = flights.run(key, seconds: siteSeconds) {
            do {
                return .success(try await work())
            } catch let failure as ServeFailure {
                return .failure(failure)
            } catch {
                return .failure(ServeFailure("\(error)"))
            }
        }
        guard let outcome else { throw ServeFailure("the site did not answer within \(Int(siteSeconds)) s") }
        return try outcome.get()
    }

    // MARK: - Chapters

    /// The text of chapter `index` of `book` as saved, or fetched through the book's source and saved first
    /// (one fetch however many ask at once); then the next `prefetchCount` chapters are fetched in the
    /// background. Replace rules are not applied here: saved text stays as the site gave it.
    func text(of book: StoredBook, index: Int) throws(ServeFailure) -> String {
        let (chapter, following) = try tocChapter(of: book, index: index)
        // After this chapter is answered: the reader's own chapter takes the host's first turn.
        defer { prefetch(following.prefix(prefetchCount), of: book) }
        if let ready = try readyText(of: chapter, in: book) { return ready }
        let next = following.first
        let outcome = chapterFlights.run(ChapterKey(bookID: book.id, index: index), seconds: siteSeconds) { [self] in
            await fetch(chapter, next: next, of: book)
        }
        guard let outcome else { throw ServeFailure("the site did not answer within \(Int(siteSeconds)) s") }
        return try outcome.get()
    }

    /// The text of chapter `index` when it needs no site (saved, or a volume heading), nil otherwise; the
    /// chapters after it are prefetched as `text(of:index:)` does.
    func savedText(of book: StoredBook, index: Int) throws(ServeFailure) -> String? {
        let (chapter, following) = try tocChapter(of: book, index: index)
        guard let ready = try readyText(of: chapter, in: book) else { return nil }
        prefetch(following.prefix(prefetchCount), of: book)
        return ready
    }

    /// The chapter at Legado's `index` and those after it that a fetch (its `next`) or the prefetch needs,
    /// not the whole TOC.
    private func tocChapter(of book: StoredBook, index: Int) throws(ServeFailure) -> (StoredChapter, [StoredChapter]) {
        let found = try library { () throws(LibraryError) in
            try store.tocChapter(bookID: book.id, position: index, following: max(1, prefetchCount))
        }
        guard let found else { throw ServeFailure("未找到 (the book has no chapter \(index))") }
        return found
    }

    /// A volume heading's title, or the chapter's saved text; nil when it has to be fetched.
    private func readyText(of chapter: StoredChapter, in book: StoredBook) throws(ServeFailure) -> String? {
        if chapter.isVolume { return chapter.title }
        return try library { () throws(LibraryError) in try store.text(bookID: book.id, url: chapter.url) }
    }

    /// Fetches and saves those of `upcoming` not saved yet, one after another in the background, each through the
    /// same single-flight fetch a reader's request joins; one such run per book, which takes on what later calls
    /// add.
    func prefetch(_ upcoming: ArraySlice<StoredChapter>, of book: StoredBook) {
        guard !upcoming.isEmpty else { return }
        let starts = prefetchQueues.withLock { queues -> Bool in
            let running = queues[book.id] != nil
            var queue = queues[book.id] ?? []
            for chapter in upcoming where !queue.contains(where: { $0.position == chapter.position }) { queue.append(chapter) }
            queues[book.id] = queue
            return !running
        }
        guard starts else { return }
        siteWork.begin()
        let all = (try? tocChapters(book)) ?? []
        Task { [self] in
            defer { siteWork.end() }
            while let chapter = nextPrefetch(of: book.id) {
                guard (try? store.text(bookID: book.id, url: chapter.url)) == nil else { continue }
                let next = all.first { $0.position > chapter.position && !$0.isVolume }
                let result = await chapterFlights.value(ChapterKey(bookID: book.id, index: chapter.position)) { [self] in
                    await fetch(chapter, next: next, of: book)
                }
                // A chapter the site would not give ends the run: the next reader's request tries again.
                if case .failure? = result { _ = prefetchQueues.withLock { $0.removeValue(forKey: book.id) } }
            }
        }
    }

    /// The next chapter to fetch ahead for the book; nil, and the book's run over, when there is none or the
    /// server is stopping.
    private func nextPrefetch(of bookID: Int64) -> StoredChapter? {
        let stopping = stopping.withLock { $0 }
        return prefetchQueues.withLock { queues -> StoredChapter? in
            guard !stopping, var queue = queues[bookID], !queue.isEmpty else {
                queues[bookID] = nil
                return nil
            }
            let chapter = queue.removeFirst()
            queues[bookID] = queue
            return chapter
        }
    }

    private func fetch(_ chapter: StoredChapter, next: StoredChapter?, of book: StoredBook) async -> Result<String, ServeFailure> {
        do {
            // Saved by a fetch that finished just before this one started.
            if let saved = try store.text(bookID: book.id, url: chapter.url) { return .success(saved) }
            let engine = try engine(sourceURL: book.sourceURL)
            let content = try await engine.content(
                of: Chapter(index: chapter.position, title: chapter.title, url: chapter.url),
                next: next.map { Chapter(index: $0.position, title: $0.title, url: $0.url) }, variables: book.variables)
            guard !content.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                let reason = content.emptyReason ?? "the chapter page has no text"
                try? store.markFailed(bookID: book.id, url: chapter.url, error: reason)
                return .failure(ServeFailure(reason))
            }
            try store.saveChapter(bookID: book.id, url: chapter.url, text: content.text)
            return .success(content.text)
        } catch let failure as ServeFailure {
            return .failure(failure)
        } catch {
            try? store.markFailed(bookID: book.id, url: chapter.url, error: "\(error)")
            return .failure(ServeFailure("\(error)"))
        }
    }

    // MARK: - Replace rules

    /// The replace rules, read again only when their file changed (every served chapter asks for them).
    func replaceRules() throws(ServeFailure) -> ReplaceRuleSet {
        do {
            return try rulesFile.rules()
        } catch {
            throw ServeFailure("\(error)")
        }
    }

    /// Changes the replace rules and saves them atomically, one change at a time.
    func changeReplaceRules(_ change: (inout ReplaceRuleSet) throws(ServeFailure) -> Void) throws(ServeFailure) {
        try rulesLock.withLock { (_) throws(ServeFailure) in
            var rules = try replaceRules()
            try change(&rules)
            do {
                try rulesFile.save(rules)
            } catch {
                throw ServeFailure("\(error)")
            }
        }
    }

    /// `text` with the replace rules that apply to `book` run over it (never saved: this is what is served).
    func served(_ text: String, of book: StoredBook) throws(ServeFailure) -> String {
        let run = ReplaceRuleRun(try replaceRules().rules, bookName: book.name, sourceURL: book.sourceURL)
        return run.isEmpty ? text : run.apply(text, to: .content)
    }

    /// Runs a library call, its error as a failure.
    func library<Value>(_ body: () throws(LibraryError) -> Value) throws(ServeFailure) -> Value {
        do {
            return try body()
        } catch {
            throw ServeFailure("\(error)")
        }
    }
}
