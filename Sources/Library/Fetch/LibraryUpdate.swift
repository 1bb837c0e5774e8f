import Foundation
import BookRuleEngine
import BookRuleHTTP

/// Brings saved books up to date as `bookrule update` does: for each book, its current source (from the
/// library's known sources, so the original file is not needed) reads the book page and TOC once, and only
/// the chapters not saved yet (new in the TOC, or failed before) are fetched, through `BookFetch` and so
/// through the one polite transport. Books run one after another; a book that cannot be read is reported
/// and the next one goes on. Rerunning after an interruption resumes: saved chapters are never fetched again.
public struct LibraryUpdate: Sendable {
    /// Where the books are.
    public let store: LibraryStore
    /// The transport every request goes through (the shared `PoliteFetcher`, a replay…).
    public let transport: any HTTPTransport
    /// The fetcher sources' `concurrentRate` applies to (by default `transport` when it is one).
    public let pacing: PoliteFetcher?
    /// Where the sources' stored logins are read (nil: none is sent).
    public let logins: (any LoginStore)?
    /// Engine options for every source.
    public let options: EngineOptions

    /// An update of books in `store` through `transport`, each source with its login from `logins`.
    public init(store: LibraryStore, transport: any HTTPTransport, pacing: PoliteFetcher? = nil,
                logins: (any LoginStore)? = nil, options: EngineOptions = EngineOptions()) {
        self.store = store
        self.transport = transport
        self.pacing = pacing ?? (transport as? PoliteFetcher)
        self.logins = logins
        self.options = options
    }

    /// An update of books in `store` through `stack` (its fetcher, its logins).
    public init(store: LibraryStore, stack: TransportStack, options: EngineOptions = EngineOptions()) {
        self.init(store: store, transport: stack.transport, pacing: stack.fetcher, logins: stack.logins, options: options)
    }

    /// What happened to one book.
    public struct Outcome: Sendable, Equatable {
        /// The book, as it is after the update.
        public var book: StoredBook
        /// Chapters new in the TOC this run.
        public var newChapters: Int
        /// Chapters saved this run.
        public var saved: Int
        /// Chapters that failed this run.
        public var failed: Int
        /// Chapters still not saved.
        public var missing: Int
        /// Why the book was not updated, or its run stopped early (a deferred host, an unreadable TOC).
        public var problem: String?
        /// Whether the run was cancelled during this book.
        public var cancelled: Bool
    }

    /// Something that happened during an update.
    public enum Event: Sendable {
        /// Work on a book starts.
        case bookStarted(StoredBook)
        /// Progress of the book's download.
        case download(DownloadEvent)
        /// A book is done (or could not be done).
        case bookFinished(Outcome)
    }

    /// Updates `books` in order. Cancelling the consuming task stops after abandoning the chapter in flight.
    public func run(books: [StoredBook]) -> AsyncStream<Event> {
        AsyncStream { continuation in
            let task = Task {
                for book in books {
                    if Task.isCancelled { break }
                    continuation.yield(.bookStarted(book))
                    continuation.yield(.bookFinished(await update(book) { continuation.yield(.download($0)) }))
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Updates one book, reporting its download's events to `emit`.
    private func update(_ book: StoredBook, emit: (DownloadEvent) -> Void) async -> Outcome {
        var outcome = Outcome(book: book, newChapters: 0, saved: 0, failed: 0,
                              missing: book.chapterCount - book.doneCount, problem: nil, cancelled: false)
        do {
            let known = try store.knownSources(bookID: book.id)
            guard let current = known.first(where: \.isCurrent) ?? known.first(where: { $0.sourceURL == book.sourceURL }),
                  let source = try BookSource.load(bytes: Array(current.json.utf8), path: current.sourceName).first
            else {
                throw LibraryUpdateError.noSource(book: book.name)
            }
            let fetch = BookFetch(source: source, transport: transport, pacing: pacing, logins: logins, store: store, options: options)
            for try await event in fetch.run(bookURL: book.url, variables: book.variables, name: book.name) {
                emit(event)
                switch event {
                case .tocMerged(let merge, _, _):
                    outcome.newChapters = merge.added
                case .finished(let summary):
                    outcome.book = summary.book
                    outcome.saved = summary.fetched
                    outcome.failed = summary.failures.count
                    outcome.missing = summary.missing
                    outcome.problem = summary.stoppedBecause
                    outcome.cancelled = summary.cancelled
                default:
                    break
                }
            }
        } catch {
            outcome.problem = "\(error)"
            outcome.cancelled = Task.isCancelled
        }
        if Task.isCancelled { outcome.cancelled = true }
        return outcome
    }
}

/// Why `LibraryUpdate` could not update a book.
public enum LibraryUpdateError: Error, CustomStringConvertible, Equatable {
    /// The library holds no usable source JSON for the book (fetch it again with `--source`).
    case noSource(book: String)

    public var description: String {
        switch self {
        case .noSource(let book):
            return "the library holds no usable source for \(book); fetch it again with --source FILE"
        }
    }
}
