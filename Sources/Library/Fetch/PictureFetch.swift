import Foundation
import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP

/// Brings the pictures of a saved book's text chapters (the `ImageLine`s of their stored text) into the
/// library, so that an EPUB can embed them with the site gone: each one not kept yet goes through
/// `MediaDownloader` on the source's transport (the polite fetcher: paced, resumable, a `.part` file put in
/// place only when complete) with the source's headers and those of the picture's own `,{"headers": …}`,
/// capped at `maximumBytes`, and is kept only when its bytes are a whole JPEG, PNG
/// or GIF, as covers are. Pictures already kept are never asked for again (`PictureFiles` keys them by URL); a
/// picture that failed is asked for again on the next run.
public struct PictureFetch: Sendable {
    /// How requests are sent: the source's transport (`SourceTransport`, `BookFetch.engine.transport`).
    public let transport: any HTTPTransport
    /// Headers every picture request sends (the source's `header`).
    public let headers: [HTTPHeader]
    /// The largest picture kept.
    public let maximumBytes: Int64

    /// The largest picture kept by default, as for covers.
    public static let defaultMaximumBytes: Int64 = 16 << 20

    /// A fetch through `transport` with `headers`.
    public init(transport: any HTTPTransport, headers: [HTTPHeader] = [], maximumBytes: Int64 = defaultMaximumBytes) {
        self.transport = transport
        self.headers = headers
        self.maximumBytes = maximumBytes
    }

    /// The fetch for the pictures of `book` through `stack`: through its source's transport (`stack.transport(for:)`:
    /// its cookie jar and stored login) and with its source's headers when the library knows the source
    /// (`knownSources`), else plainly through the stack.
    public static func forBook(_ book: StoredBook, store: LibraryStore, stack: TransportStack) -> PictureFetch {
        let known = (try? store.knownSources(bookID: book.id)) ?? []
        guard let record = known.first(where: \.isCurrent) ?? known.first(where: { $0.sourceURL == book.sourceURL }),
              let source = try? BookSource.load(bytes: Array(record.json.utf8), path: record.sourceName).first
        else { return PictureFetch(transport: stack.transport) }
        return PictureFetch(transport: stack.transport(for: source).transport, headers: source.headers)
    }

    /// What a run did.
    public struct Report: Sendable, Equatable {
        /// Distinct pictures the saved chapters show.
        public var pictures: Int
        /// Of those, already in the library before the run.
        public var alreadyKept: Int
        /// Downloaded and kept by this run.
        public var fetched: Int
        /// The pictures that could not be kept, and why.
        public var problems: [PictureError]
    }

    /// The distinct picture URLs of the saved, listed chapters of book `bookID`, in reading order.
    public static func pictureURLs(bookID: Int64, store: LibraryStore) throws(LibraryError) -> [String] {
        try pictures(bookID: bookID, store: store).map(\.url)
    }

    /// The distinct pictures (by URL; the first line's options win) of the saved, listed chapters, in order.
    static func pictures(bookID: Int64, store: LibraryStore) throws(LibraryError) -> [ImageLine] {
        var seen: Set<String> = []
        var pictures: [ImageLine] = []
        for chapter in try store.chapters(bookID: bookID) where chapter.inTOC && !chapter.isVolume && chapter.state == .done {
            guard let text = try store.text(bookID: bookID, url: chapter.url) else { continue }
            for line in ImageLine.all(in: text) where seen.insert(line.url).inserted { pictures.append(line) }
        }
        return pictures
    }

    /// The headers a picture's request sends: `headers`, with those of Legado's `,{"headers": {…}}` on the
    /// picture taking the place of same-named ones. Options that cannot be read add nothing.
    func requestHeaders(for picture: ImageLine) -> [HTTPHeader] {
        guard !picture.options.isEmpty,
              let own = try? URLTemplate(picture.url + picture.options, field: "picture").headers, !own.isEmpty
        else { return headers }
        let names = Set(own.map { $0.name.lowercased() })
        return headers.filter { !names.contains($0.name.lowercased()) } + own
    }

    /// Fetches the pictures of book `bookID` that the library does not hold yet.
    public func run(bookID: Int64, store: LibraryStore) async throws -> Report {
        let pictures = try await store.onOwnThread { try Self.pictures(bookID: bookID, store: $0) }
        let files = PictureFiles(store: store, bookID: bookID)
        var report = Report(pictures: pictures.count, alreadyKept: 0, fetched: 0, problems: [])
        let missing = pictures.filter { files.image(for: $0.url) == nil }
        report.alreadyKept = pictures.count - missing.count
        guard !missing.isEmpty else { return report }
        do {
            try FileManager.default.createDirectory(atPath: files.directory, withIntermediateDirectories: true)
        } catch {
            report.problems = missing.map { .fetchFailed(url: $0.url, reason: "cannot create \(files.directory): \(error.localizedDescription)") }
            return report
        }
        let downloader = MediaDownloader(transport: transport, jobs: 2)
        for (index, picture) in missing.enumerated() {
            let path = files.path(for: picture.url)
            // A file left by an earlier run that is not a whole picture is fetched again, not trusted.
            try? FileManager.default.removeItem(atPath: path)
            do {
                try await downloader.add(MediaDownloadTask(id: String(index), url: picture.url, destination: path,
                                                           headers: requestHeaders(for: picture), maximumBytes: maximumBytes))
            } catch {
                report.problems.append(.fetchFailed(url: picture.url, reason: error.description))
            }
        }
        for (task, state) in try await downloader.finishAll() {
            switch state {
            case .completed:
                switch ExportImage.check(path: task.destination) {
                case .success?:
                    report.fetched += 1
                case .failure(let problem)?:
                    try? FileManager.default.removeItem(atPath: task.destination)
                    report.problems.append(.notAnImage(url: task.url, problem: problem.description))
                case nil:
                    report.problems.append(.notAnImage(url: task.url, problem: "an empty file"))
                }
            case .failed(let reason):
                report.problems.append(.fetchFailed(url: task.url, reason: reason))
            default:
                report.problems.append(.fetchFailed(url: task.url, reason: "the download did not finish (\(state))"))
            }
        }
        return report
    }
}
