import BookRule
import Dispatch
import Foundation

/// `bookrule fetch`: downloads a whole book into the library, politely and resumably, optionally exporting it.
struct FetchCommand: Command {
    static let helps = [CommandHelp(
        name: "fetch", summary: "Download a whole book into the offline library (resumable)",
        usage: ["bookrule fetch --source FILE (BOOK_URL | --search KEYWORD [--pick N]) [options]",
                "bookrule fetch --search KEYWORD --sources FILE_OR_DIR [--mirrors N] [--pick N] [options]"],
        about: """
        Reads the book page and every TOC page, then saves each chapter not yet in the library, one at a time and
        each on its own, so an interrupted run (Ctrl-C, a closed laptop, kill -9) loses at most the chapter in
        flight. Run the same command again to resume: saved chapters are skipped, failed ones retried, and chapters
        new in the TOC fetched. Exit status 1 when any chapter in range is still missing, 2 when the command line
        or the source cannot run (a rule the book page, TOC or content needs that cannot run: nothing is fetched).
        A TOC that lists no chapter (ruleToc.chapterList selected nothing) or a book with no title (the book page's
        ruleBookInfo.name, else the search result's name, else the title the library has) fails with exit status 1
        and adds nothing.

        With --sources, every source of the files and folders given is searched (as `search --sources` does) and
        the book is picked from the books found: the only one, or the one named exactly KEYWORD, else --pick N
        (without it the candidates are listed and nothing is fetched). It is fetched from the first of its sources,
        in the collection's order, whose book page and TOC can be read, and up to N (--mirrors, default 1) of its
        other sources whose TOC aligns with that one certainly are recorded as known sources: they give the
        chapters that fail, and with N > 1 they share the download as --mirrors does. The download starts once the
        sources that answered are known, after --wait seconds at most: a source still searching then is left out,
        and a host that cannot be reached (refused, no connection within --connect-timeout, no such name) is tried
        once and left out for the rest of the run.

        A source file that is a library source whose site moved (the same name and JSON, one host replaced by
        another) moves that source's books to the new host first, keeping their saved chapters.

        For audio (type 1) and image (type 2) sources, the files each chapter links are downloaded in order into
        media/BOOK_ID/ beside the library (0001-<hash>-001.jpg, …), resumably; a chapter counts as saved
        only when its files are complete. The cover is kept in covers/BOOK_ID beside the library.
        """,
        groups: [OptionGroup(options), .fetching()])]

    /// The options of its own, before the fetching ones.
    private static let options: [CommandOption] = {
        var options: [CommandOption] = [
            .value("--source", "FILE", summary: "Book source JSON file", completes: .source),
            .value("--source-name", "NAME", summary: "Which source of an array file"),
            .value("--search", "KEYWORD", summary: "Search instead of giving BOOK_URL"),
            .value("--pick", "N", summary: "Which search result (default 1), or with --sources which book found"),
            .value("--sources", "PATH", summary: "Search a collection of sources (a file or folder; repeat it) instead "
                   + "of --source", completes: .source, repeats: true),
        ]
        options += CollectionSearchOptions.options
        options += [
            .value("--wait", "SECONDS", summary: "With --sources: longest wait for the collection's answers before the "
                   + "book is picked from the sources that answered (default 20)"),
            .value("--from", "N", summary: "Only chapters from N (1-based TOC positions)"),
            .value("--to", "M", summary: "Only chapters up to M (1-based TOC positions)"),
            .value("--mirrors", "N", summary: "Split the missing chapters among up to N sources the book is known on, "
                   + "each on a host of its own and paced as always (`bookrule sources BOOK`; default 1); with "
                   + "--sources, also how many other certain copies are recorded as mirrors"),
            .flag("--verify", summary: "After the download, compare a sample of chapters across the book's known "
                  + "sources and name truncated or different copies (exit status 1 when there are any)"),
            .value("--sample", "N", summary: "How many chapters --verify compares (default 8, spread over the book)"),
            LibraryOptions.library,
            .flag("--txt", summary: "Export the book as plain UTF-8 text when the download ends"),
            .flag("--epub", summary: "Export the book as EPUB 3 when the download ends (with --txt: both files)"),
            .value("-o", "PATH", summary: "Export file or directory (a directory with both formats; default: the "
                   + "title in the current directory)", completes: .file),
            LibraryOptions.convert,
        ]
        options += LibraryOptions.replace
        options += OfflinePages.options
        options.append(.value("--record", "HAR", summary: "Keep every exchange of this run in a HAR file (for fixtures)",
                              completes: .file))
        options.append(.flag("--json", summary: "Progress as JSON lines on stdout"))
        return options
    }()

    /// `--source FILE` (and `--source-name`): the book at BOOK_URL, or found with `--search`; nil with `--sources`.
    let sourceFile: (path: String, name: String?)?
    /// `--sources PATH…`, searched for `--search`'s keyword; empty with `--source`.
    let collectionPaths: [String]
    /// BOOK_URL as typed, nil with `--search`.
    let bookURL: String?
    /// `--search KEYWORD`.
    let keyword: String?
    /// `--pick N`, nil when not given (the first result, or with `--sources` no pick).
    let pick: Int?
    /// `--from`/`--to`, nil without either.
    let range: ClosedRange<Int>?
    /// `--mirrors N` (1 to 16).
    let mirrors: Int
    /// `--verify`, with `--sample`'s size.
    let verifySample: Int?
    /// `--wait` for a collection's answers.
    let wait: Duration
    /// `--jobs` and `--source-timeout`, for `--sources`.
    let collectionSearch: MultiSourceSearch.Options
    /// `--epub` and `--txt`: the formats to write (EPUB first), none for no export.
    let formats: [ExportFormat]
    /// `-o`.
    let output: String?
    /// `--library`, `--convert`, `--no-replace` and `--explain`.
    let library: LibraryOptions
    /// `--saved`, `--saved-dir` and `--replay`, read once the URL they stand for is known.
    let offline: OfflinePages.Request
    /// `--record HAR`.
    let record: String?
    /// `--json`.
    let json: Bool
    /// The fetching options, with a collection's defaults (`FetchOptions.overManySources`) over `--sources`.
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        let collection = arguments.values("--sources")
        let path = arguments.value("--source")
        guard (path == nil) != collection.isEmpty else { throw UsageError("give --source FILE, or --sources with --search") }
        keyword = arguments.value("--search")
        guard (keyword == nil) == (arguments.positionals.count == 1), arguments.positionals.count <= 1 else {
            throw UsageError("give either one BOOK_URL or --search KEYWORD")
        }
        if !collection.isEmpty, keyword == nil { throw UsageError("--sources takes --search KEYWORD, not a BOOK_URL") }
        sourceFile = path.map { ($0, arguments.value("--source-name")) }
        collectionPaths = collection
        bookURL = arguments.positionals.first
        pick = arguments.value("--pick") == nil ? nil : try arguments.positiveInt("--pick", default: 1)
        let from = try arguments.positiveInt("--from", default: 1)
        let to = try arguments.positiveInt("--to", default: Int.max)
        guard from <= to else { throw UsageError("--from \(from) is after --to \(to)") }
        range = arguments.value("--from") == nil && arguments.value("--to") == nil ? nil : from...to
        mirrors = try arguments.positiveInt("--mirrors", default: 1, maximum: 16)
        let sample = try arguments.positiveInt("--sample", default: 8, maximum: 10_000)
        verifySample = arguments.has("--verify") ? sample : nil
        wait = try arguments.seconds("--wait", default: .seconds(20))
        collectionSearch = try CollectionSearchOptions.read(arguments)
        formats = LibraryAccess.formats(arguments)
        output = arguments.value("-o")
        library = try LibraryOptions(arguments)
        offline = OfflinePages.Request(arguments)
        record = arguments.value("--record")
        if record != nil, offline.isOffline {
            throw UsageError("--record fetches live; it excludes --replay, --saved and --saved-dir")
        }
        json = arguments.has("--json")
        let given = try FetchOptions(arguments)
        // Over a collection a dead source is tried once and left out for the run (docs/many-sources.md).
        fetching = collection.isEmpty ? given : given.overManySources()
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let fetch: BookFetch
        let display = ProgressDisplay(terminal: terminal, mode: ProgressDisplay.mode(json: json))
        var recorder: (transport: RecordingTransport, path: String)?
        var shelved: BookCopyLookup.Shelved?
        do {
            let pathSource = try sourceFile.map {
                try SourceCommand.pickSource(path: $0.path, name: $0.name,
                                             steps: (keyword == nil ? [] : [.search]) + [.bookInfo, .toc, .content], terminal: terminal)
            }
            let resolvedURL = pathSource.flatMap { source in bookURL.map { URLReference.resolve($0, against: source.url) ?? $0 } }
            let offline = try OfflinePages(self.offline, commandURL: resolvedURL)
            var stack = try fetching.stack(terminal: terminal, offline: offline, observe: { display.handle($0) },
                                           waits: { display.handle($0) })
            if let record {
                stack = stack.recording()
                recorder = stack.recorder.map { ($0, record) }
            }
            let store = try LibraryAccess.open(library.path, create: true)
            let source: BookSource
            if let pathSource {
                source = pathSource
                try Self.followMove(of: source, store: store, terminal: terminal)
            } else {
                let cache = offline.isOffline ? nil : LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)
                do {
                    let found = try await shelve(keyword ?? "", paths: collectionPaths, stack: stack, store: store,
                                                 cache: cache, terminal: terminal)
                    shelved = found
                    source = found.copy.source
                } catch let error as UsageError {
                    throw error
                } catch {
                    // No copy could be read: the sites' failure, not the command line's.
                    terminal.error("error: \(ErrorHint.message(error))")
                    return ExitStatus(for: error).code
                }
            }
            fetch = BookFetch(source: source, stack: stack, store: store, keepsScriptCache: !offline.isOffline)
            for warning in fetch.warnings { terminal.error("warning: \(warning)") }
        } catch let error as UsageError {
            throw error
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return 2
        }

        // Ctrl-C: stop after abandoning the chapter in flight (it stays pending), save, say how to resume.
        let (searchKeyword, chosen, chapterRange, mirrorCount) = (keyword, pick, range, mirrors)
        let work = Task { [shelved, bookURL = shelved?.book.url ?? bookURL ?? ""] () async throws -> DownloadSummary? in
            var bookURL = bookURL
            var variables = shelved?.copy.info.variables ?? [:]
            var name = shelved?.book.name
            if let keyword = searchKeyword, shelved == nil {
                let page = try await fetch.engine.search(key: keyword)
                let pick = chosen ?? 1
                guard pick <= page.results.count else {
                    throw UsageError("the search for \"\(keyword)\" found \(page.results.count) book(s); --pick \(pick) is out of range")
                }
                if page.results.count > 1 && chosen == nil {
                    for (index, result) in page.results.prefix(10).enumerated() {
                        terminal.error("  \(index + 1). \(result.name)\(result.author.isEmpty ? "" : " — \(result.author)")")
                    }
                    terminal.error("taking result 1; choose another with --pick N")
                }
                bookURL = page.results[pick - 1].bookURL
                variables = page.results[pick - 1].variables
                name = page.results[pick - 1].name
            }
            var summary: DownloadSummary?
            for try await event in fetch.run(bookURL: bookURL, range: chapterRange, variables: variables, mirrors: mirrorCount, name: name) {
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

        let result = await work.result
        display.endBarLine()
        let summary: DownloadSummary?
        do {
            summary = try result.get()
        } catch let error as UsageError {
            terminal.error("error: \(error)")
            return 2
        } catch let error as EngineError {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return 1
        }
        guard let summary else {
            // Cancelled (Ctrl-C): the stream ends without its summary; what was saved is in the library.
            terminal.error("interrupted: every chapter saved so far is kept; run the same command again to resume")
            return 1
        }
        Self.report(summary, terminal: terminal, json: json)
        if summary.cancelled {
            terminal.error("interrupted: everything saved so far is kept; run the same command again to resume")
            return 1
        }

        var suspect = false
        if let verifySample {
            do {
                let verification = try await fetch.verify(bookID: summary.book.id, sampleSize: verifySample)
                VerificationPrinter.print(verification, terminal: terminal, json: json)
                suspect = !verification.suspect.isEmpty
            } catch {
                terminal.error("error: --verify failed: \(ErrorHint.message(error))")
                return 1
            }
        }

        if !formats.isEmpty {
            do {
                let export = try LibraryAccess.export(summary.book, store: fetch.store, library: library, terminal: terminal)
                let paths = try LibraryAccess.write(export, formats: formats, output: output, terminal: terminal)
                terminal.error("exported \(export.chapterCount) chapter(s) to \(paths.joined(separator: " and "))"
                               + (export.missing > 0 ? " (\(export.missing) missing)" : ""))
            } catch {
                terminal.error("error: export failed: \(ErrorHint.message(error))")
                return 1
            }
        }
        return summary.isComplete && !suspect ? 0 : 1
    }

    /// `--search KEYWORD --sources …`: searches the collection, picks the book (the only one, the one named
    /// exactly KEYWORD, or `--pick N` of the books as `search --sources` groups them) and shelves it with its
    /// certain copies as mirrors (`BookCopyLookup.shelve`).
    private func shelve(_ keyword: String, paths: [String], stack: TransportStack, store: LibraryStore, cache: String?,
                        terminal: Terminal) async throws -> BookCopyLookup.Shelved {
        let collection = SourceCollection(paths: paths)
        for problem in collection.problems { terminal.error("warning: \(problem)") }
        guard !collection.sources.isEmpty else { throw UsageError("no sources could be read from \(paths.joined(separator: ", "))") }
        let options = EngineOptions(scriptCacheDirectory: cache)
        let engine: @Sendable (BookSource) -> SourceEngine = {
            SourceEngine(source: $0, connection: stack.transport(for: $0), options: options)
        }
        var searchOptions = collectionSearch
        // The book's copies are those of the sources that answered by then: a source still searching is left out.
        searchOptions.bound = wait
        let search = MultiSourceSearch(sources: collection.sources, options: searchOptions, engine: engine)
        var list = FoundBookList()
        for await outcome in search.results(for: keyword) {
            list.add(outcome)
            if let failure = outcome.failure { terminal.error("\(outcome.source.name): failed (\(failure.kind.rawValue)): \(failure.message)") }
        }
        // The order `search --sources` lists them in, whatever order the sources answered in: --pick N is its N.
        let books = list.ranked(in: collection.sources)
        guard !books.isEmpty else {
            throw BookCopyError.nothingFound(keyword: keyword, sources: collection.sources.count)
        }
        let exact = books.filter { $0.identity.name == BookIdentity(name: keyword, author: "").name }
        let book: FoundBook
        if let pick {
            guard pick <= books.count else {
                throw UsageError("the search for \"\(keyword)\" found \(books.count) book(s); --pick \(pick) is out of range")
            }
            book = books[pick - 1]
        } else if books.count == 1 || exact.count == 1, let only = books.count == 1 ? books.first : exact.first {
            book = only
        } else {
            for (index, found) in books.prefix(20).enumerated() {
                terminal.error("  \(index + 1). \(found.name)\(found.author.isEmpty ? "" : " — \(found.author)")  "
                               + "(\(found.copies.count) source(s): \(found.copies.map(\.sourceName).joined(separator: ", ")))")
            }
            throw UsageError("the search for \"\(keyword)\" found \(books.count) books; choose one with --pick N")
        }
        // Copies on sources that cannot run a step of the download are left out, in lint's words.
        var usable: [BookSource] = []
        for source in collection.sources where book.copies.contains(where: { $0.sourceURL == source.url }) {
            do {
                try source.requireUsable(for: [.bookInfo, .toc, .content])
                usable.append(source)
            } catch {
                terminal.error("warning: \(source.name) left out: \(error)")
            }
        }
        let shelved = try await BookCopyLookup(store: store, engine: engine).shelve(book, sources: usable, mirrors: mirrors)
        terminal.error("#\(shelved.book.id) \(shelved.book.name): fetching from \(shelved.copy.source.name) (\(shelved.copy.chapters.count) entries)"
                       + (shelved.mirrors.isEmpty ? "" : "; mirrors: " + shelved.mirrors.map { "\($0.source.name) (\($0.certainty.summary))" }
                           .joined(separator: ", ")))
        for (name, reason) in shelved.rejected { terminal.error("  not a mirror: \(name): \(reason)") }
        return shelved
    }

    /// Moves the books of the library source `source` is, when its site moved (`LibraryStore.movedSource`), so
    /// that the fetch finds them on the new host with their saved chapters.
    private static func followMove(of source: BookSource, store: LibraryStore, terminal: Terminal) throws {
        let record = BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())
        guard let moved = try store.movedSource(for: record) else { return }
        let result = try store.moveHost(moved.move, bookIDs: moved.bookIDs, replacing: (moved.storedURL, record))
        terminal.error("\(source.name) moved from \(moved.move.old) to \(moved.move.new): \(result.bookIDs.count) book(s) take the new URLs "
                       + "(\(result.chapters) chapter URL(s); \(result.textsKept) saved chapter(s) keep their text)")
    }

    /// Says how the download ended: saved counts, why it stopped, the chapters that failed.
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
