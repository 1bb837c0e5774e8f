#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BookRule
import Foundation

/// `search KEYWORD --sources FILE_OR_DIR…`: one keyword over many sources at once, books grouped across them.
struct MultiSearchCommand: Command {
    static let helps = [CommandHelp(
        name: "search", summary: "Search a site (--source) or many at once (--sources) and list the books found",
        usage: ["bookrule search KEYWORD --sources FILE_OR_DIR [FILE_OR_DIR…] [options]"],
        about: """
        Searches every source in the files and folders given (each *.json file of a folder) at once and prints each
        source's results as they come, then lists the books found, each once with every source that has it
        (grouped by name and author, ignoring spacing, punctuation, full-width forms and notes such as （精校版）),
        then the sources that failed, by kind: timeout, http error, blocked, rule broke, could not run. A host that
        cannot be reached (refused, no connection within --connect-timeout, no such name) is tried once and left
        out for the run, so a dead source never holds back the others. On a terminal a live line shows sources
        done/total, books found and failures. Exit status 1 when every source failed.
        """,
        groups: [
            OptionGroup([
                .value("--sources", "PATH", summary: "A source file or a folder of them; repeat it, or list more paths "
                       + "after KEYWORD", completes: .source, repeats: true),
            ] + CollectionSearchOptions.options + [
                .value("--page", "N", summary: "Results page asked of every source (default 1)"),
                .value("--replay", "HAR", summary: "Answer every request from a HAR recording instead of the network",
                       completes: .file),
                .flag("--json", summary: "Print the books and failures as one JSON document at the end"),
                .flag("--json-lines", summary: "Print one JSON object per source as it answers (\"event\": \"source\"), "
                      + "then the books and failures as one last object (\"event\": \"done\")"),
            ]),
            .fetching("Fetching (live requests go through the polite fetcher: one request at a time per host)"),
        ],
        operands: .source)]

    /// Whether `words` ask for this command rather than the single-source search: they give `--sources`.
    static func claims(_ words: [String]) -> Bool {
        words.contains { $0 == "--sources" || $0.hasPrefix("--sources=") }
    }

    /// KEYWORD: the first operand.
    let keyword: String
    /// The source files and folders: `--sources` values, then the operands after KEYWORD.
    let paths: [String]
    /// `--jobs`, `--source-timeout` and `--page`.
    let limits: MultiSourceSearch.Options
    /// `--replay HAR`: every answer from a recording.
    let replay: String?
    /// `--json`.
    let json: Bool
    /// `--json-lines`.
    let jsonLines: Bool
    /// The fetching options, with a collection's defaults (`FetchOptions.overManySources`).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard let first = arguments.positionals.first else { throw UsageError("give one KEYWORD (quote it if it has spaces)") }
        keyword = first
        paths = arguments.values("--sources") + arguments.positionals.dropFirst()
        let page = try arguments.positiveInt("--page", default: 1)
        limits = try CollectionSearchOptions.read(arguments, page: page)
        fetching = try FetchOptions(arguments).overManySources()
        replay = arguments.value("--replay")
        json = arguments.has("--json")
        jsonLines = arguments.has("--json-lines")
        if json && jsonLines { throw UsageError("give --json or --json-lines, not both") }
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let search: MultiSourceSearch
        // Sources that cannot be read, or a recording or fetcher that cannot be used, stop the search before it
        // starts: exit status 2.
        do {
            let collection = SourceCollection(paths: paths)
            for problem in collection.problems { terminal.error("warning: \(problem)") }
            guard !collection.sources.isEmpty else { throw UsageError("no sources could be read from \(paths.joined(separator: ", "))") }
            // A replay keeps no script cache: what a script takes from a recording must not reach a live run.
            let cache = replay != nil ? nil : LibraryStore.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())
            let options = EngineOptions(scriptCacheDirectory: cache)
            // One stack for every engine: a host serving several sources still gets one request at a time.
            let stack = if let replay {
                try TransportStack.offline(pages: [], harPath: replay)
            } else {
                try fetching.stack(terminal: terminal)
            }
            let make: @Sendable (BookSource) -> SourceEngine = {
                SourceEngine(source: $0, connection: stack.transport(for: $0), options: options)
            }
            search = MultiSourceSearch(sources: collection.sources, options: limits, engine: make)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "search"))
            return 2
        } catch {
            terminal.error("error: \(error)")
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
                Self.printLine(outcome, terminal: terminal)
            } else if text {
                Self.printStreamed(outcome, terminal: terminal, statusLines: !live)
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
            Self.printJSON(list, in: search.sources, keyword: keyword, seconds: seconds, lines: jsonLines, terminal: terminal)
        } else {
            Self.printText(list, in: search.sources, seconds: seconds, terminal: terminal)
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
