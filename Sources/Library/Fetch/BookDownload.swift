import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON

/// Downloads a whole book into the library: book page, every TOC page, then each chapter not yet saved, one
/// at a time through the engine's (polite) transport, each chapter committed on its own.
///
/// A rerun skips saved chapters, retries failed ones and appends chapters new in the TOC. Cancelling the
/// consuming task abandons the chapter in flight (it stays pending) and ends the stream; everything saved
/// stays saved. Request-level detail (waits, retries) comes from the `PoliteFetcher`'s own events.
public struct BookDownload: Sendable {
    /// The engine for the book's source.
    public let engine: SourceEngine
    /// Where chapters are saved.
    public let store: LibraryStore

    /// Builds the engine of another source the book is known on, for per-chapter fallback (see
    /// `ChapterFallback`); nil takes every chapter from `engine`'s source only.
    public let fallbackEngine: (@Sendable (BookSource) -> SourceEngine)?

    /// Creates a download; with `fallbackEngine`, a chapter that fails on the book's source is taken from
    /// another known source of the book where the chapter alignment is certain.
    public init(engine: SourceEngine, store: LibraryStore,
                fallbackEngine: (@Sendable (BookSource) -> SourceEngine)? = nil) {
        self.engine = engine
        self.store = store
        self.fallbackEngine = fallbackEngine
    }

    /// Which chapters to fetch.
    public struct Options: Sendable {
        /// 1-based chapter numbers (TOC positions, volumes included) to fetch; nil for all.
        public var range: ClosedRange<Int>?
        /// Book variables from a search result (`@put` values).
        public var variables: [String: String]
        /// For audio and image sources: where the media files each chapter links go, as
        /// `<mediaDirectory>/<book id>/<MediaFileName>` (`0007-3fa9c2d1-002.jpg`), downloaded in order
        /// through `MediaDownloader` before the chapter counts as saved. Nil skips them.
        public var mediaDirectory: String?

        /// Up to how many sources on different hosts share the chapters (`fetch --mirrors N`): the book's own
        /// and other known sources of the book (with `fallbackEngine`), each on its own host, one worker per
        /// host pulling from one queue, so each host is still paced as always. 1 fetches from the book's source.
        public var mirrors: Int

        /// The book's title when its page gives none (no `ruleBookInfo.name`, or one that found nothing): a
        /// search result's name, as Legado keeps it. Without it the title already in the library is kept, and
        /// a book with no title at all is refused (`DownloadError.untitledBook`).
        public var name: String?

        /// Creates options.
        public init(range: ClosedRange<Int>? = nil, variables: [String: String] = [:], mediaDirectory: String? = nil,
                    mirrors: Int = 1, name: String? = nil) {
            self.range = range
            self.variables = variables
            self.mediaDirectory = mediaDirectory
            self.mirrors = mirrors
            self.name = name
        }
    }

    /// Runs the download, reporting progress as events. The stream throws when the book page or TOC cannot
    /// be read, when the TOC lists no chapters (`DownloadError.emptyTOC`) and when the book has no title
    /// (`DownloadError.untitledBook`); then nothing is added to the library. A chapter that fails is reported
    /// and recorded, and the run goes on.
    public func run(bookURL: String, options: Options = Options()) -> AsyncThrowingStream<DownloadEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await download(bookURL: bookURL, options: options) { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func download(bookURL: String, options: Options, emit: @escaping @Sendable (DownloadEvent) -> Void) async throws {
        let clock = ContinuousClock()
        let started = clock.now
        let source = engine.source
        let record = BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())

        var info = try await engine.bookInfo(url: bookURL, variables: options.variables)
        // The TOC is read before anything is stored: a book whose list rule finds nothing is not a 0/0 book.
        let toc = try await engine.toc(of: info)
        guard !toc.chapters.isEmpty else { throw DownloadError.emptyTOC(url: toc.pages.first ?? info.tocURL) }
        if info.name.isEmpty {
            let url = info.url
            let stored = try await store.onOwnThread { try $0.books() }
                .first { $0.sourceURL == source.url && $0.url == url }?.name
            guard let name = [options.name, stored].compactMap({ $0 }).first(where: { !$0.isEmpty }) else {
                throw DownloadError.untitledBook(url: info.url)
            }
            info.name = name
        }
        var book = try await store.onOwnThread { [info] in try $0.upsertBook(source: record, info: info) }
        emit(.bookInfo(book, warnings: info.warnings))

        let merge = try await store.onOwnThread { [id = book.id] in try $0.mergeTOC(bookID: id, chapters: toc.chapters) }
        emit(.tocMerged(merge, chapters: toc.chapters.count, warnings: toc.warnings))

        let all = try await store.onOwnThread { [id = book.id] in try $0.chapters(bookID: id) }
        let inRange = all.filter { chapter in
            !chapter.isVolume && chapter.inTOC && !chapter.url.isEmpty && (options.range?.contains(chapter.position + 1) ?? true)
        }
        var todo = inRange.filter { $0.state != .done }
        emit(.started(total: inRange.count, alreadySaved: inRange.count - todo.count, toFetch: todo.count))

        var saved = 0
        var failures: [DownloadSummary.Failure] = []
        var stopReason: String?
        var fallback = fallbackEngine.map {
            ChapterFallback(bookID: book.id, currentSourceURL: source.url, store: store, makeEngine: $0)
        }
        let listed = all.filter(\.inTOC)
        if options.mirrors > 1, var mirrorSources = fallback, !todo.isEmpty {
            let others = try await mirrorSources.others(listed: listed)
            fallback = mirrorSources
            saved += try await fetchInParallel(todo, all: all, info: info, book: book, options: options,
                                               mirrors: others, emit: emit)
            // What the workers left (failed on every host that could serve it) goes through the usual pass.
            let done = Set(try await store.onOwnThread { [id = book.id] in try $0.chapters(bookID: id, states: [.done]) }.map(\.url))
            todo.removeAll { done.contains($0.url) }
        }
        for chapter in todo {
            if Task.isCancelled { break }
            let next = all.first { $0.position > chapter.position && !$0.isVolume && !$0.url.isEmpty }
            emit(.chapterStarted(position: chapter.position, title: chapter.title))
            do {
                let characters = try await fetchFromBookSource(chapter, next: next, info: info, book: book, options: options)
                saved += 1
                emit(.chapterSaved(position: chapter.position, title: chapter.title, characters: characters))
            } catch {
                if Task.isCancelled || error is CancellationError { break }
                let message = "\(error)"
                // Another source of the book, where the alignment is certain; a host that stopped is
                // survived this way too, chapter by chapter.
                if fallback != nil, let other = try? await fallback?.content(forChapterAt: chapter.url, listed: listed) {
                    try await store.onOwnThread { [id = book.id] in
                        try $0.saveChapter(bookID: id, url: chapter.url, text: other.text, sourceURL: other.sourceURL)
                    }
                    saved += 1
                    emit(.chapterFromOtherSource(position: chapter.position, title: chapter.title,
                                                 sourceName: other.sourceName, error: message))
                    emit(.chapterSaved(position: chapter.position, title: chapter.title, characters: other.text.count))
                    continue
                }
                if Task.isCancelled { break }
                try await store.onOwnThread { [id = book.id] in try $0.markFailed(bookID: id, url: chapter.url, error: message) }
                failures.append(DownloadSummary.Failure(position: chapter.position, title: chapter.title,
                                                        url: chapter.url, error: message))
                emit(.chapterFailed(position: chapter.position, title: chapter.title, error: message))
                // A deferred host or an open breaker fails every chapter after it: stop and keep what is saved.
                if let fetchError = Self.hostStopped(error) {
                    stopReason = fetchError
                    break
                }
            }
        }

        book = try await store.onOwnThread { [id = book.id] in try $0.book(id: id) } ?? book
        let remaining = try await store.onOwnThread { [id = book.id] in try $0.chapters(bookID: id) }
        let elapsed = clock.now - started
        emit(.finished(DownloadSummary(
            book: book, fetched: saved, failures: failures,
            missing: remaining.filter { chapter in
                !chapter.isVolume && chapter.inTOC && chapter.state != .done && (options.range?.contains(chapter.position + 1) ?? true)
            }.count,
            cancelled: Task.isCancelled, stoppedBecause: stopReason,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)))
    }

    /// Fetches `chapter` from the book's own source and saves it (media files first); returns its length.
    private func fetchFromBookSource(_ chapter: StoredChapter, next: StoredChapter?, info: BookInfo, book: StoredBook,
                                     options: Options) async throws -> Int {
        let content = try await engine.content(
            of: Chapter(index: chapter.position, title: chapter.title, url: chapter.url),
            next: next.map { Chapter(index: $0.position, title: $0.title, url: $0.url) },
            book: info, variables: info.variables)
        // An audio or image chapter's text is its list of media URLs when the rule gave no other text.
        let text = content.text.isEmpty ? content.mediaURLs.joined(separator: "\n") : content.text
        guard !text.isEmpty else {
            throw DownloadError.emptyChapter(url: chapter.url, reason: content.emptyReason)
        }
        if let root = options.mediaDirectory, !content.mediaURLs.isEmpty {
            try await downloadMedia(content.mediaURLs, chapterNumber: chapter.position + 1,
                                    chapterURL: chapter.url, into: root + "/\(book.id)")
        }
        try await store.onOwnThread { [id = book.id] in
            try $0.saveChapter(bookID: id, url: chapter.url, title: content.title, text: text)
        }
        return text.count
    }

    /// `fetch --mirrors`: one worker for the book's host and one for each other source on a host of its own
    /// (up to `options.mirrors` hosts in all), pulling chapters from one `ChapterQueue`. A mirror serves only
    /// chapters its TOC aligns with certainly, and its text is saved under the book's chapter (title and place
    /// unchanged) with the mirror as its origin. A worker that fails hands the chapter back; after three
    /// failures in a row, or when its host stops (deferred, breaker open), it stops and leaves the rest to
    /// the others. Failures are not recorded here: the sequential pass after it retries what is left.
    private func fetchInParallel(_ todo: [StoredChapter], all: [StoredChapter], info: BookInfo, book: StoredBook,
                                 options: Options, mirrors: [ChapterFallback.Candidate],
                                 emit: @escaping @Sendable (DownloadEvent) -> Void) async throws -> Int {
        var hosts: Set<String> = [URLOrigin(info.url)?.authority ?? engine.source.url]
        var chosen: [ChapterFallback.Candidate] = []
        for mirror in mirrors where chosen.count + 1 < options.mirrors && !mirror.incomingByURL.isEmpty {
            let host = URLOrigin(mirror.known.bookURL)?.authority ?? mirror.known.sourceURL
            if hosts.insert(host).inserted { chosen.append(mirror) }
        }
        // No other host: the usual pass alone, so a chapter that fails is not asked for twice.
        guard !chosen.isEmpty else { return 0 }
        let queue = ChapterQueue(todo)
        return try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0...chosen.count {
                let mirror = worker == 0 ? nil : chosen[worker - 1]
                let servable = mirror.map { Set($0.incomingByURL.keys) }
                group.addTask {
                    var saved = 0
                    var failuresInARow = 0
                    while !Task.isCancelled, failuresInARow < 3,
                          let chapter = await queue.take(worker: worker, servable: servable) {
                        emit(.chapterStarted(position: chapter.position, title: chapter.title))
                        do {
                            let characters: Int
                            if let mirror {
                                guard let text = try await mirror.text(forChapterAt: chapter.url) else {
                                    await queue.giveBack(chapter, worker: worker)
                                    continue
                                }
                                try await store.onOwnThread { [id = book.id] in
                                    try $0.saveChapter(bookID: id, url: chapter.url, text: text, sourceURL: mirror.known.sourceURL)
                                }
                                characters = text.count
                            } else {
                                let next = all.first { $0.position > chapter.position && !$0.isVolume && !$0.url.isEmpty }
                                characters = try await fetchFromBookSource(chapter, next: next, info: info, book: book,
                                                                           options: options)
                            }
                            saved += 1
                            failuresInARow = 0
                            emit(.chapterSaved(position: chapter.position, title: chapter.title, characters: characters))
                        } catch {
                            await queue.giveBack(chapter, worker: worker)
                            if Task.isCancelled || error is CancellationError { break }
                            failuresInARow += 1
                            if Self.hostStopped(error) != nil { break }
                        }
                    }
                    return saved
                }
            }
            var total = 0
            for try await saved in group { total += saved }
            return total
        }
    }

    /// Downloads a chapter's media files in order, one at a time, resuming partial ones and skipping complete
    /// ones; throws the first failure, or `CancellationError` (after pausing, which keeps the partial data).
    private func downloadMedia(_ urls: [String], chapterNumber: Int, chapterURL: String, into directory: String) async throws {
        let downloader = MediaDownloader(transport: engine.transport, jobs: 1)
        for (index, url) in urls.enumerated() {
            let name = MediaFileName(chapterNumber: chapterNumber, chapterURL: chapterURL, fileNumber: index + 1, fileURL: url)
            try await downloader.add(MediaDownloadTask(
                id: String(index), url: url, destination: directory + "/\(name)", headers: engine.source.headers))
        }
        for (task, state) in try await downloader.finishAll() {
            if case .failed(let reason) = state { throw DownloadError.mediaFailed(url: task.url, reason: reason) }
            if state != .completed { throw CancellationError() }
        }
    }

    /// The reason to stop the whole run when `error` means the host will refuse everything for now.
    private static func hostStopped(_ error: any Error) -> String? {
        var fetchError = error as? FetchError
        if case .transport(_, let underlying)? = error as? EngineError { fetchError = underlying as? FetchError }
        switch fetchError {
        case .hostDeferred?, .breakerOpen?, .hostDown?: return fetchError.map { "\($0)" }
        default: return nil
        }
    }
}

/// Something that happened during a `BookDownload`.
public enum DownloadEvent: Sendable {
    /// The book page was read and the book stored (or updated).
    case bookInfo(StoredBook, warnings: [String])
    /// The TOC was read and merged into the library.
    case tocMerged(TOCMerge, chapters: Int, warnings: [String])
    /// Chapter fetching starts: how many chapters are in range, already saved, and to fetch now.
    case started(total: Int, alreadySaved: Int, toFetch: Int)
    /// A chapter's first page is being requested.
    case chapterStarted(position: Int, title: String)
    /// A chapter was saved.
    case chapterSaved(position: Int, title: String, characters: Int)
    /// A chapter failed on the book's source (`error`) and was taken from another source the book is known
    /// on, `sourceName`, where the chapter alignment is certain; `.chapterSaved` follows.
    case chapterFromOtherSource(position: Int, title: String, sourceName: String, error: String)
    /// A chapter failed and was recorded as missing with its error.
    case chapterFailed(position: Int, title: String, error: String)
    /// The book has no cover, though its source names one (`BookFetch`, before `.finished`).
    case coverMissing(CoverError)
    /// Pictures of the book's text chapters that could not be kept; an export shows their URLs instead
    /// (`BookFetch`, before `.finished`).
    case picturesMissing([PictureError])
    /// The run ended (completed, cancelled, or stopped by the host).
    case finished(DownloadSummary)
}

/// How a download ended.
public struct DownloadSummary: Sendable, Codable, Equatable {
    /// A chapter that could not be saved in this run.
    public struct Failure: Sendable, Codable, Equatable {
        public var position: Int
        public var title: String
        public var url: String
        public var error: String
    }

    /// The book as stored at the end.
    public var book: StoredBook
    /// Chapters saved in this run.
    public var fetched: Int
    /// Chapters that failed in this run.
    public var failures: [Failure]
    /// Chapters in range still not saved (failed, or not reached).
    public var missing: Int
    /// Whether the run was cancelled (Ctrl-C).
    public var cancelled: Bool
    /// Set when the host deferred the work or its breaker opened.
    public var stoppedBecause: String?
    /// Wall time of the run.
    public var seconds: Double

    /// Whether every chapter in range is saved.
    public var isComplete: Bool { missing == 0 }
}

/// Why a chapter could not be saved.
public enum DownloadError: Error, Sendable, CustomStringConvertible {
    /// The content rules found no text (never saved as a placeholder).
    case emptyChapter(url: String, reason: String?)
    /// A media file the chapter links (audio and image sources) could not be downloaded; `reason` says why.
    /// The chapter stays missing, and the next run resumes the file.
    case mediaFailed(url: String, reason: String)
    /// `ruleToc.chapterList` selected nothing on the TOC page at `url`: the book is not added (or, when it is
    /// in the library already, left as it was).
    case emptyTOC(url: String)
    /// The book page at `url` gave no title (`ruleBookInfo.name` missing or empty), no search result named the
    /// book and the library does not know it: it is not added, since a book needs a name to be found again.
    case untitledBook(url: String)

    /// The rule field the error is about, when it is one.
    public var field: String? {
        switch self {
        case .emptyTOC: return "ruleToc.chapterList"
        case .untitledBook: return "ruleBookInfo.name"
        case .emptyChapter, .mediaFailed: return nil
        }
    }

    public var description: String {
        switch self {
        case .emptyChapter(let url, let reason): return reason ?? "the content rules found no text on \(url)"
        case .mediaFailed(let url, let reason): return "the media file \(url) could not be downloaded: \(reason)"
        case .emptyTOC(let url):
            return "ruleToc.chapterList selected nothing on \(url): the book has no chapters, so the library is left as it was"
        case .untitledBook(let url):
            return "ruleBookInfo.name gave no title on \(url) and no search result named the book, so the library is left as it was"
        }
    }
}
