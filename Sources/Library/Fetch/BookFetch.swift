import Foundation
import BookRuleEngine
import BookRuleHTTP

/// Downloads a whole book into the library as `bookrule fetch` does, for an app to call the same way: the
/// source's transport (`SourceTransport`), the book page, every TOC page and each chapter not yet saved
/// (`BookDownload`), the media files of audio and image sources into the library's media folder, the
/// pictures of text chapters (`PictureFetch`), and the cover beside the library, checked to be a whole image. Export the result with `LibraryExport`.
public struct BookFetch: Sendable {
    /// The engine the book is read with.
    public let engine: SourceEngine
    /// Where the book is saved.
    public let store: LibraryStore
    /// Problems setting the source up that did not stop it (see `SourceTransport.warnings`).
    public let warnings: [String]
    /// The engine for another known source of the book, through the same transport: a chapter that fails on
    /// the book's source is taken from one where the alignment is certain (`BookDownload.fallbackEngine`).
    public let fallbackEngine: @Sendable (BookSource) -> SourceEngine

    /// A fetch of books of `source` through `stack` (what a command fetches through: `transport(for:)` gives
    /// the source its pacing, cookie jar and stored login), as `init(source:transport:pacing:logins:…)`.
    public init(source: BookSource, stack: TransportStack, store: LibraryStore, options: EngineOptions = EngineOptions(),
                keepsScriptCache: Bool = true) {
        self.init(source: source, transport: stack.transport, pacing: stack.fetcher, logins: stack.logins, store: store,
                  options: options, keepsScriptCache: keepsScriptCache)
    }

    /// A fetch of books of `source` through `transport` (the shared `PoliteFetcher`, a recording of it, a
    /// `HARReplayTransport`…); `pacing` is the fetcher the source's `concurrentRate` applies to, by default
    /// `transport` itself when it is one; `logins` is where the source's stored login is read (nil: none is
    /// sent). Scripts keep their `cache` in the library's `script-cache/` unless
    /// `options` names another directory, or `keepsScriptCache` is false (a fetch from saved pages or a
    /// replay: what a script takes from them must not reach a later live run).
    public init(source: BookSource, transport: any HTTPTransport, pacing: PoliteFetcher? = nil,
                logins: (any LoginStore)? = nil, store: LibraryStore,
                options: EngineOptions = EngineOptions(), keepsScriptCache: Bool = true) {
        let pacing = pacing ?? (transport as? PoliteFetcher)
        let connection = SourceTransport(for: source, over: transport, pacing: pacing, logins: logins)
        var options = options
        if !keepsScriptCache {
            options.scriptCacheDirectory = nil
        } else if options.scriptCacheDirectory == nil {
            options.scriptCacheDirectory = LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)
        }
        engine = SourceEngine(source: source, connection: connection, options: options)
        self.store = store
        warnings = connection.warnings
        let engineOptions = options
        fallbackEngine = { other in
            SourceEngine(source: other, connection: SourceTransport(for: other, over: transport, pacing: pacing, logins: logins),
                         options: engineOptions)
        }
    }

    /// The largest cover kept: anything larger is not an image a reader wants in an EPUB (or not an image).
    public static let maximumCoverBytes: Int64 = 16 << 20

    /// Runs the download (see `BookDownload.run`); `range` limits it to TOC positions, `variables` are a
    /// search result's and `name` its name (the title when the book page gives none); `mirrors` > 1 splits the
    /// chapters among that many known sources on different hosts (`BookDownload.Options.mirrors`). When the
    /// chapters are done (not cancelled) the cover is fetched, and a cover that cannot be kept is reported as
    /// `.coverMissing` before `.finished`.
    public func run(bookURL: String, range: ClosedRange<Int>? = nil, variables: [String: String] = [:],
                    mirrors: Int = 1, name: String? = nil) -> AsyncThrowingStream<DownloadEvent, any Error> {
        let download = BookDownload(engine: engine, store: store, fallbackEngine: fallbackEngine)
        let options = BookDownload.Options(range: range, variables: variables, mediaDirectory: store.mediaRoot,
                                           mirrors: mirrors, name: name)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in download.run(bookURL: bookURL, options: options) {
                        if case .finished(let summary) = event, !summary.cancelled, !Task.isCancelled {
                            if let problem = await saveCover(of: summary.book) { continuation.yield(.coverMissing(problem)) }
                            let problems = await savePictures(of: summary.book)
                            if !problems.isEmpty { continuation.yield(.picturesMissing(problems)) }
                        }
                        continuation.yield(event)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Keeps the pictures of the book's text chapters in the library (`PictureFetch` through the source's
    /// transport and headers), so that an EPUB made later embeds them with the site gone; returns the ones
    /// that could not be kept (a cancelled run returns none: what was fetched is kept, the rest comes next time).
    public func savePictures(of book: StoredBook) async -> [PictureError] {
        let fetch = PictureFetch(transport: engine.transport, headers: engine.source.headers)
        do {
            return try await fetch.run(bookID: book.id, store: store).problems
        } catch is CancellationError {
            return []
        } catch {
            return [.fetchFailed(url: book.url, reason: "the chapters' pictures could not be listed: \(error)")]
        }
    }

    /// Compares up to `sampleSize` chapters of book `bookID` across the sources it is known on, through the
    /// same transport (`ChapterVerification`; `fetch --verify`).
    public func verify(bookID: Int64, sampleSize: Int = 8) async throws -> VerificationReport {
        try await ChapterVerification(store: store, makeEngine: fallbackEngine).run(bookID: bookID, sampleSize: sampleSize)
    }

    /// Keeps the book's cover at `store.coverPath(bookID:)` for EPUB export, when the source names one and it
    /// is a whole JPEG, PNG or GIF. It goes through `MediaDownloader` like any other file: streamed to a
    /// `.part` file, resumable, and put in place only when complete. Returns why there is no cover, nil when
    /// there is one or the site has none (an error status).
    public func saveCover(of book: StoredBook) async -> CoverError? {
        let path = store.coverPath(bookID: book.id)
        guard !book.coverURL.isEmpty, !FileManager.default.fileExists(atPath: path) else { return nil }
        let downloader = MediaDownloader(transport: engine.transport, jobs: 1)
        do {
            try await downloader.add(MediaDownloadTask(
                id: "cover", url: book.coverURL, destination: path, headers: engine.source.headers,
                maximumBytes: Self.maximumCoverBytes))
        } catch {
            return .fetchFailed(url: book.coverURL, reason: "\(error)")
        }
        await downloader.waitUntilIdle()
        await downloader.finishEvents()
        var problem: CoverError?
        for await event in downloader.events {
            switch event {
            case .completed:
                let bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
                if let imageProblem = ExportCover(bytes: bytes).problem {
                    try? FileManager.default.removeItem(atPath: path)
                    problem = .notAnImage(url: book.coverURL, problem: imageProblem.description)
                }
            case .failed(_, .httpStatus):
                break  // A cover the site answers with an error status is simply absent.
            case .failed(_, let error):
                problem = .fetchFailed(url: book.coverURL, reason: "\(error)")
            default:
                break
            }
        }
        return problem
    }
}
