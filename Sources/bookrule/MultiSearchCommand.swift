#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BookRule
import Foundation

/// `search KEYWORD --sources FILE_OR_DIR…`: one keyword over many sources at once, books grouped across them.
enum MultiSearchCommand {
    static let help = """
    Usage: bookrule search KEYWORD --sources FILE_OR_DIR [FILE_OR_DIR…] [options]

    Searches every source in the files and folders given (each *.json file of a folder) at once and prints each
    source's results as they come, then lists the books found, each once with every source that has it
    (grouped by name and author, ignoring spacing, punctuation, full-width forms and notes such as （精校版）),
    then the sources that failed, by kind: timeout, http error, blocked, rule broke, could not run. A host that
    cannot be reached (refused, no connection within --connect-timeout, no such name) is tried once and left
    out for the run, so a dead source never holds back the others. On a terminal a live line shows sources
    done/total, books found and failures. Exit status 1 when every source failed.

    Options:
      --sources PATH      A source file or a folder of them; repeat it, or list more paths after KEYWORD
    \(collectionHelp)  --page N            Results page asked of every source (default 1)
      --replay HAR        Answer every request from a HAR recording instead of the network
      --json              Print the books and failures as one JSON document at the end
      --json-lines        Print one JSON object per source as it answers ("event": "source"), then the
                          books and failures as one last object ("event": "done")
      -h, --help          Show this help

    Fetching (live requests go through the polite fetcher: one request at a time per host):
    \(FetchOptions.help)
    """

    /// The help lines of `--jobs` and `--source-timeout`, which every command searching a collection takes.
    static let collectionHelp = """
      --jobs N            Sources searched at the same time (default 16); each host is still paced on its own
      --source-timeout SECONDS  Longest time one source may take, waiting for its host included (default 30)

    """

    /// `--jobs`, `--source-timeout` and `--page` as the search's options.
    static func searchOptions(_ arguments: CommandLineArguments) throws(UsageError) -> MultiSourceSearch.Options {
        let jobs = try arguments.positiveInt("--jobs", default: 16, maximum: 1000)
        let page = try arguments.positiveInt("--page", default: 1)
        var timeout = Duration.seconds(30)
        if let text = arguments.value("--source-timeout") {
            guard let seconds = Double(text), seconds > 0, seconds < 86_400 else {
                throw UsageError("--source-timeout takes a number of seconds above 0, not \"\(text)\"")
            }
            timeout = .milliseconds(Int64(seconds * 1000))
        }
        return MultiSourceSearch.Options(concurrency: jobs, timeout: timeout, page: page)
    }

    /// Whether `words` ask for this command rather than the single-source search.
    static func applies(to words: [String]) -> Bool {
        words.contains { $0 == "--sources" || $0.hasPrefix("--sources=") }
    }

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["--sources", "--jobs", "--source-timeout", "--page", "--replay"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--json", "--json-lines"]))
        } catch {
            terminal.error(UsageMessage.text(error, command: "search"))
            return 2
        }
        if arguments.has("--help") {
            terminal.print(help)
            return 0
        }
        let search: MultiSourceSearch
        let keyword: String
        do {
            guard let first = arguments.positionals.first else { throw UsageError("give one KEYWORD (quote it if it has spaces)") }
            keyword = first
            let paths = (arguments.options["--sources"] ?? []) + arguments.positionals.dropFirst()
            let collection = SourceCollection(paths: paths)
            for problem in collection.problems { terminal.error("warning: \(problem)") }
            guard !collection.sources.isEmpty else { throw UsageError("no sources could be read from \(paths.joined(separator: ", "))") }
            let limits = try searchOptions(arguments)
            let fetch = try FetchOptions(arguments).overManySources()
            // A replay keeps no script cache: what a script takes from a recording must not reach a live run.
            let replaying = arguments.value("--replay") != nil
            let cache = replaying ? nil : LibraryStore.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())
            let options = EngineOptions(scriptCacheDirectory: cache)
            // One stack for every engine: a host serving several sources still gets one request at a time.
            let stack = if let replay = arguments.value("--replay") {
                try TransportStack.offline(pages: [], harPath: replay)
            } else {
                try fetch.stack(terminal: terminal)
            }
            let make: @Sendable (BookSource) -> SourceEngine = {
                SourceEngine(source: $0, connection: stack.transport(for: $0), options: options)
            }
            search = MultiSourceSearch(sources: collection.sources,
                                       options: limits, engine: make)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "search"))
            return 2
        } catch {
            terminal.error("error: \(error)")
            return 2
        }

        let json = arguments.has("--json")
        let jsonLines = arguments.has("--json-lines")
        if json && jsonLines {
            terminal.error(UsageMessage.text(UsageError("give --json or --json-lines, not both"), command: "search"))
            return 2
        }
        let text = !json && !jsonLines
        let live = text && isatty(STDERR_FILENO) == 1 && ProcessEnvironment.value("TERM") != "dumb"
        let started = ContinuousClock.now
        var list = FoundBookList()
        let total = search.sources.count
        for await outcome in search.results(for: keyword) {
            list.add(outcome)
            if live { terminal.errorRaw("\r\u{1B}[K") }
            if jsonLines {
                printLine(outcome, terminal: terminal)
            } else if text {
                printStreamed(outcome, terminal: terminal, statusLines: !live)
            }
            if live {
                var line = "searched \(list.sourcesDone)/\(total) sources · \(list.books.count) book(s)"
                if !list.failures.isEmpty { line += " · \(list.failures.count) failed" }
                terminal.errorRaw("\r\u{1B}[K" + line)
            }
        }
        if live { terminal.errorRaw("\r\u{1B}[K") }
        let seconds = (ContinuousClock.now - started).seconds
        if json || jsonLines {
            printJSON(list, in: search.sources, keyword: keyword, seconds: seconds, lines: jsonLines, terminal: terminal)
        } else {
            printText(list, in: search.sources, seconds: seconds, terminal: terminal)
        }
        return list.failures.count == total ? 1 : 0
    }

    /// One source's outcome as it arrives, in the text form: its results on stdout (`NAME: N result(s) in S s`,
    /// then one line per book), and with `statusLines` (not on a terminal, where the live line says it) a line
    /// on stderr for a source that found nothing or failed.
    private static func printStreamed(_ outcome: SourceSearchOutcome, terminal: Terminal, statusLines: Bool) {
        let time = String(format: "%.1f", outcome.seconds)
        switch outcome.result {
        case .success(let page) where !page.results.isEmpty:
            terminal.print("\(outcome.source.name): \(page.results.count) result(s) in \(time) s")
            for result in page.results {
                let author = result.author.isEmpty ? "" : " — \(result.author)"
                let latest = result.lastChapter.isEmpty ? "" : "  latest: \(result.lastChapter)"
                terminal.print("   \(result.name)\(author)  \(result.bookURL)\(latest)")
            }
        case .success:
            if statusLines { terminal.error("\(outcome.source.name): 0 result(s) in \(time) s") }
        case .failure(let error):
            if statusLines {
                terminal.error("\(outcome.source.name): failed (\(error.failure.kind.rawValue)) in \(time) s: \(error.failure.message)")
            }
        }
    }

    /// One source's outcome as one JSON line (`--json-lines`).
    struct SourceLine: Encodable {
        var event = "source"
        var sourceName: String
        var sourceURL: String
        var seconds: Double
        var results: [SearchResult]
        var failure: Report.Failure?
    }

    private static func printLine(_ outcome: SourceSearchOutcome, terminal: Terminal) {
        var line = SourceLine(sourceName: outcome.source.name, sourceURL: outcome.source.url,
                              seconds: (outcome.seconds * 1000).rounded() / 1000, results: [])
        switch outcome.result {
        case .success(let page): line.results = page.results
        case .failure(let error):
            line.failure = Report.Failure(sourceName: outcome.source.name, sourceURL: outcome.source.url,
                                          kind: error.failure.kind.rawValue, message: error.failure.message)
        }
        do {
            terminal.print(try JSONWriter.string(line))
        } catch {
            terminal.error("error: \(error)")
        }
    }

    /// The JSON form: books (each with its copies) and failures.
    struct Report: Encodable {
        struct Failure: Encodable {
            var sourceName: String
            var sourceURL: String
            var kind: String
            var message: String
        }
        /// "done" in `--json-lines`, absent in `--json`.
        var event: String?
        var keyword: String
        var sources: Int
        var seconds: Double
        var books: [FoundBook]
        var failures: [Failure]
    }

    /// Books in `FoundBookList.ranked(in:)` order, the order `fetch --search --sources --pick N` counts in.
    private static func printJSON(_ list: FoundBookList, in sources: [BookSource], keyword: String, seconds: Double, lines: Bool,
                                  terminal: Terminal) {
        let report = Report(event: lines ? "done" : nil, keyword: keyword, sources: sources.count,
                            seconds: (seconds * 1000).rounded() / 1000, books: list.ranked(in: sources),
                            failures: list.failures.map {
            Report.Failure(sourceName: $0.source.name, sourceURL: $0.source.url, kind: $0.failure.kind.rawValue,
                           message: $0.failure.message)
        })
        do {
            terminal.print(try JSONWriter.string(report, style: lines ? .compact : .pretty))
        } catch {
            terminal.error("error: \(error)")
        }
    }

    /// Books numbered in `FoundBookList.ranked(in:)` order: the N shown is the N `fetch --search --pick N` takes.
    private static func printText(_ list: FoundBookList, in sources: [BookSource], seconds: Double, terminal: Terminal) {
        for (index, book) in list.ranked(in: sources).enumerated() {
            let author = book.author.isEmpty ? "" : " — \(book.author)"
            terminal.print("\(index + 1). \(book.name)\(author)  (\(book.copies.count) source\(book.copies.count == 1 ? "" : "s"))")
            for copy in book.copies {
                let latest = copy.lastChapter.isEmpty ? "" : "  latest: \(copy.lastChapter)"
                terminal.print("   \(copy.sourceName)  \(copy.bookURL)\(latest)")
            }
        }
        let found = sources.count - list.failures.count - list.sourcesEmpty
        terminal.print("searched \(sources.count) source(s) in \(String(format: "%.1f", seconds)) s: \(list.books.count) book(s); "
                       + "\(found) source(s) found something, \(list.sourcesEmpty) found nothing, \(list.failures.count) failed")
        guard !list.failures.isEmpty else { return }
        terminal.print("failures: " + list.failureCounts.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", "))
        for (source, failure) in list.failures.sorted(by: { $0.failure.kind < $1.failure.kind }) {
            terminal.print("   \(source.name) (\(failure.kind.rawValue)): \(failure.message)")
        }
    }
}
