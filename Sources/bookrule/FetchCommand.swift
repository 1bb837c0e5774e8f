import BookRule
import Dispatch
import Foundation

/// `bookrule fetch`: downloads a whole book into the library, politely and resumably, optionally exporting it.
enum FetchCommand {
    static let help = """
    Usage: bookrule fetch --source FILE (BOOK_URL | --search KEYWORD [--pick N]) [options]

    Reads the book page and every TOC page, then saves each chapter not yet in the library, one at a time and
    each on its own, so an interrupted run (Ctrl-C, a closed laptop, kill -9) loses at most the chapter in
    flight. Run the same command again to resume: saved chapters are skipped, failed ones retried, and chapters
    new in the TOC fetched. Exit status 1 when any chapter in range is still missing.

    For audio (type 1) and image (type 2) sources, the files each chapter links are downloaded in order into
    media/BOOK_ID/ beside the library (0001-<hash>-001.jpg, …), resumably; a chapter counts as saved
    only when its files are complete. The cover is kept in covers/BOOK_ID beside the library.

    Options:
      --source FILE       Book source JSON file
      --source-name NAME  Which source of an array file
      --search KEYWORD    Search instead of giving BOOK_URL
      --pick N            Which search result (default 1)
      --from N, --to M    Only chapters N to M (1-based TOC positions)
    \(LibraryAccess.help)  --txt, --epub        Export the book when the download ends
      -o PATH             Export file or directory (default: the title in the current directory)
      --replay HAR        Answer every request from a HAR recording (offline)
      --record HAR        Keep every exchange of this run in a HAR file (for fixtures)
      --json              Progress as JSON lines on stdout
      -h, --help          Show this help

    Fetching:
    \(FetchOptions.help)
    """

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(
                words,
                valueOptions: FetchOptions.valueNames.union(["--source", "--source-name", "--search", "--pick", "--from", "--to",
                                                             "--library", "-o", "--replay", "--record"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--txt", "--epub", "--json"]))
        } catch {
            terminal.error("error: \(error)\n\n\(help)")
            return 2
        }
        if arguments.has("--help") {
            terminal.print(help)
            return 0
        }
        let engine: SourceEngine
        let store: LibraryStore
        let range: ClosedRange<Int>?
        let display = ProgressDisplay(terminal: terminal, mode: ProgressDisplay.mode(json: arguments.has("--json")))
        var transport: any HTTPTransport
        var recorder: (transport: RecordingTransport, path: String)?
        do {
            guard let path = arguments.value("--source") else { throw UsageError("--source FILE is required") }
            let search = arguments.value("--search")
            guard (search == nil) == (arguments.positionals.count == 1), arguments.positionals.count <= 1 else {
                throw UsageError("give either one BOOK_URL or --search KEYWORD")
            }
            if arguments.has("--txt") && arguments.has("--epub") { throw UsageError("choose --txt or --epub, not both") }
            let from = try arguments.positiveInt("--from", default: 1)
            let to = try arguments.positiveInt("--to", default: Int.max)
            guard from <= to else { throw UsageError("--from \(from) is after --to \(to)") }
            range = arguments.value("--from") == nil && arguments.value("--to") == nil ? nil : from...to
            let source = try SourceCommand.pickSource(path: path, name: arguments.value("--source-name"))
            let fetch = try FetchOptions(arguments)
            if let replay = arguments.value("--replay") {
                transport = try HARReplayTransport(contentsOf: replay)
            } else {
                let verbose = fetch.verbose
                let fetcher = PoliteFetcher(transport: CurlTransport(configuration: fetch.curl), policy: fetch.policy) { event in
                    if verbose { terminal.error(event.description) }
                    display.handle(event)
                }
                transport = FetchOptions.transport(for: source, over: fetcher, terminal: terminal)
            }
            if let path = arguments.value("--record") {
                guard arguments.value("--replay") == nil else { throw UsageError("--record and --replay exclude each other") }
                let recording = RecordingTransport(upstream: transport)
                recorder = (recording, path)
                transport = recording
            }
            engine = SourceEngine(source: source, transport: transport)
            store = try LibraryAccess.open(arguments, create: true)
        } catch let error as UsageError {
            terminal.error("error: \(error)\n\n\(help)")
            return 2
        } catch {
            terminal.error("error: \(error)")
            return 2
        }

        // Ctrl-C: stop after abandoning the chapter in flight (it stays pending), save, say how to resume.
        let work = Task { () async throws -> DownloadSummary? in
            var bookURL = arguments.positionals.first ?? ""
            var variables: [String: String] = [:]
            if let keyword = arguments.value("--search") {
                let page = try await engine.search(key: keyword)
                let pick = try arguments.positiveInt("--pick", default: 1)
                guard pick <= page.results.count else {
                    throw UsageError("the search for \"\(keyword)\" found \(page.results.count) book(s); --pick \(pick) is out of range")
                }
                if page.results.count > 1 && arguments.value("--pick") == nil {
                    for (index, result) in page.results.prefix(10).enumerated() {
                        terminal.error("  \(index + 1). \(result.name)\(result.author.isEmpty ? "" : " — \(result.author)")")
                    }
                    terminal.error("taking result 1; choose another with --pick N")
                }
                bookURL = page.results[pick - 1].bookURL
                variables = page.results[pick - 1].variables
            }
            var summary: DownloadSummary?
            let media = store.mediaRoot
            for try await event in BookDownload(engine: engine, store: store).run(
                bookURL: bookURL, options: .init(range: range, variables: variables, mediaDirectory: media)) {
                display.handle(event)
                if case .finished(let final) = event { summary = final }
            }
            return summary
        }
        let interrupts = InterruptHandler { work.cancel() }
        defer {
            interrupts.stop()
            if let recorder {
                do {
                    try recorder.transport.recording.write(to: recorder.path)
                } catch {
                    terminal.error("error: could not save the recording: \(error)")
                }
            }
        }

        let summary: DownloadSummary?
        do {
            summary = try await work.value
        } catch let error as UsageError {
            terminal.error("error: \(error)")
            return 2
        } catch let error as EngineError {
            terminal.error("error: \(error)")
            return error.exitStatus
        } catch {
            terminal.error("error: \(error)")
            return 1
        }
        guard let summary else {
            // Cancelled (Ctrl-C): the stream ends without its summary; what was saved is in the library.
            terminal.error("interrupted: every chapter saved so far is kept; run the same command again to resume")
            return 1
        }
        report(summary, terminal: terminal, json: arguments.has("--json"))
        if summary.cancelled {
            terminal.error("interrupted: everything saved so far is kept; run the same command again to resume")
            return 1
        }

        await saveCover(of: summary.book, transport: transport, store: store, terminal: terminal)
        if arguments.has("--txt") || arguments.has("--epub") {
            do {
                let (book, missing) = try LibraryAccess.exportBook(summary.book, store: store)
                let path = try LibraryAccess.write(book, epub: arguments.has("--epub"), output: arguments.value("-o"))
                terminal.error("exported \(book.chapters.filter { !$0.isVolume }.count) chapter(s) to \(path)"
                               + (missing > 0 ? " (\(missing) missing)" : ""))
            } catch {
                terminal.error("error: export failed: \(error)")
                return 1
            }
        }
        return summary.isComplete ? 0 : 1
    }

    static func report(_ summary: DownloadSummary, terminal: Terminal, json: Bool) {
        let book = summary.book
        terminal.error("\(book.name): \(book.doneCount)/\(book.chapterCount) chapters saved (\(summary.fetched) this run, "
                       + String(format: "%.1f s", summary.seconds) + ")")
        if let reason = summary.stoppedBecause { terminal.error("stopped: \(reason)") }
        if !summary.failures.isEmpty {
            terminal.error("failed chapters (run again to retry them):")
            for failure in summary.failures {
                terminal.error("  \(failure.position + 1). \(failure.title): \(failure.error)")
            }
        }
        if summary.missing > 0 && summary.failures.isEmpty && !summary.cancelled {
            terminal.error("\(summary.missing) chapter(s) still missing; run again to fetch them")
        }
    }

    /// A cover larger than this is not an image a reader wants in an EPUB (or not an image at all).
    static let maximumCoverBytes: Int64 = 16 << 20

    /// Keeps the book's cover beside the library for EPUB export, when the source names one and it is an image.
    /// It goes through `MediaDownloader` like any other file: streamed to a `.part` file, resumable, and put in
    /// place only when complete.
    static func saveCover(of book: StoredBook, transport: any HTTPTransport, store: LibraryStore, terminal: Terminal) async {
        let path = store.coverPath(bookID: book.id)
        guard !book.coverURL.isEmpty, !FileManager.default.fileExists(atPath: path) else { return }
        let downloader = MediaDownloader(transport: transport, jobs: 1)
        do {
            try await downloader.add(MediaDownloadTask(
                id: "cover", url: book.coverURL, destination: path, maximumBytes: Self.maximumCoverBytes))
        } catch {
            terminal.error("warning: the cover could not be fetched: \(error)")
            return
        }
        await downloader.waitUntilIdle()
        await downloader.finishEvents()
        for await event in downloader.events {
            switch event {
            case .completed:
                // The exporter only takes complete JPEG, PNG or GIF images; anything else is not kept as the cover.
                let bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0) } ?? []
                if ExportCover(bytes: bytes, mediaType: "").epubMediaType == nil {
                    try? FileManager.default.removeItem(atPath: path)
                }
            case .failed(_, .httpStatus):
                break  // A cover the site answers with an error status is simply absent, as before.
            case .failed(_, let error):
                terminal.error("warning: the cover could not be fetched: \(error)")
            default:
                break
            }
        }
    }
}

/// Turns the first Ctrl-C into a cancellation and the second into an immediate exit.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(onInterrupt: @escaping @Sendable () -> Void) {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = FirstAnswer()
        source.setEventHandler {
            if count.claim() {
                onInterrupt()
            } else {
                exit(130)
            }
        }
        source.resume()
        self.source = source
    }

    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
