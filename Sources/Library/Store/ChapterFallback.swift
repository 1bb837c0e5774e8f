import BookRuleEngine

/// Takes a chapter that failed on the book's source from another source the book is known on, where the
/// alignment of that source's TOC with the saved chapters is certain (`ChapterAlignment`: equal normalised
/// titles, occurring equally often on both sides). Position or number-only matches are never used: text from
/// a wrongly paired chapter would be saved as real.
///
/// Each other source's book page and TOC are read at most once per run, on the first failure; a source whose
/// TOC cannot be read is left out for the rest of the run. Requests go through the engines `makeEngine`
/// builds, so through the one polite fetcher.
struct ChapterFallback {
    /// Another source, read and aligned.
    struct Candidate: Sendable {
        var known: KnownSource
        var engine: SourceEngine
        var info: BookInfo
        var toc: [Chapter]
        /// TOC index on this source by the saved chapter's URL, certain matches only.
        var incomingByURL: [String: Int]

        /// The chapter saved at `url` read from this source: its text, nil when this source does not have it
        /// certainly or gives no plain text (audio and image chapters need the files of the source that lists them).
        func text(forChapterAt url: String) async throws -> String? {
            guard let index = incomingByURL[url] else { return nil }
            let chapter = toc[index]
            let next = toc[(index + 1)...].first { !$0.isVolume && !$0.url.isEmpty }
            let content = try await engine.content(of: chapter, next: next, book: info, variables: info.variables)
            guard content.mediaURLs.isEmpty, !content.text.isEmpty else {
                throw DownloadError.emptyChapter(url: chapter.url, reason: content.emptyReason)
            }
            return content.text
        }
    }

    let bookID: Int64
    let currentSourceURL: String
    let store: LibraryStore
    let makeEngine: @Sendable (BookSource) -> SourceEngine
    private var candidates: [Candidate]?

    init(bookID: Int64, currentSourceURL: String, store: LibraryStore,
         makeEngine: @escaping @Sendable (BookSource) -> SourceEngine) {
        self.bookID = bookID
        self.currentSourceURL = currentSourceURL
        self.store = store
        self.makeEngine = makeEngine
    }

    /// The chapter at `url` (a saved chapter of the book, listed in `listed`, the book's chapters in TOC order)
    /// from the first other source that has it certainly and gives text: its text and the source's URL and
    /// name; nil when no source can. Cancellation is rethrown.
    mutating func content(forChapterAt url: String, listed: [StoredChapter]) async throws
        -> (text: String, sourceURL: String, sourceName: String)? {
        for candidate in try await others(listed: listed) {
            do {
                guard let text = try await candidate.text(forChapterAt: url) else { continue }
                return (text, candidate.known.sourceURL, candidate.known.sourceName)
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
            }
        }
        return nil
    }

    /// The other sources whose TOC could be read, each aligned with `listed` (read on the first call only).
    mutating func others(listed: [StoredChapter]) async throws -> [Candidate] {
        if let candidates { return candidates }
        let loaded = try await load(listed: listed)
        candidates = loaded
        return loaded
    }

    private func load(listed: [StoredChapter]) async throws -> [Candidate] {
        var loaded: [Candidate] = []
        let others = (try? store.knownSources(bookID: bookID))?.filter { $0.sourceURL != currentSourceURL } ?? []
        for known in others {
            do {
                loaded.append(try await Self.candidate(known, listed: listed, makeEngine: makeEngine))
            } catch {
                if Task.isCancelled || error is CancellationError { throw CancellationError() }
            }
        }
        return loaded
    }

    /// `known` read (book page and TOC) and aligned with `listed`. Throws when its JSON holds no source or a
    /// page cannot be read.
    static func candidate(
        _ known: KnownSource, listed: [StoredChapter], makeEngine: @Sendable (BookSource) -> SourceEngine
    ) async throws -> Candidate {
        guard let source = try BookSource.load(bytes: Array(known.json.utf8), path: known.sourceName).first else {
            throw SourceFileError.empty(path: known.sourceName)
        }
        let engine = makeEngine(source)
        let info = try await engine.bookInfo(url: known.bookURL, variables: known.variables)
        let toc = try await engine.toc(of: info).chapters
        let alignment = ChapterAlignment(saved: listed.map(\.title), incoming: toc.map(\.title))
        var byURL: [String: Int] = [:]
        for match in alignment.certain where !listed[match.saved].isVolume && !toc[match.incoming].isVolume {
            byURL[listed[match.saved].url] = match.incoming
        }
        return Candidate(known: known, engine: engine, info: info, toc: toc, incomingByURL: byURL)
    }
}
