import BookRule
import Foundation

/// `sources BOOK` and `switch BOOK SOURCE_FILE`: the sources a saved book is known on, and moving it to another.
enum BookSourcesCommand {
    static func help(_ command: String) -> String {
        command == "switch" ? """
        Usage: bookrule switch BOOK SOURCE_FILE [options]

        Moves a saved book to another source. The book is found on the source by searching its name (the result
        with the same name and author), or at --book-url; its TOC is read and aligned with the saved chapters by
        normalised title (第十二章 = 第12章 = Chapter 12; volume prefixes, punctuation, spacing and full-width forms
        ignored; position breaks ties). The alignment is printed first: matched (and how sure), new, unmatched.
        Without --yes nothing changes (a dry run). With --yes, in one transaction: matched chapters keep their
        saved text, new ones are added to fetch, unmatched saved chapters are kept but no longer listed, and the
        old source stays known (`bookrule sources BOOK`).

        Options:
          --source-name NAME  Which source of an array file
          --book-url URL      The book's page on the new source (skips the search)
          --yes               Switch (without it: report the alignment only)
        \(LibraryAccess.help)  -h, --help          Show this help

        Fetching:
        \(FetchOptions.help)
        """ : """
        Usage: bookrule sources BOOK [--check] [options]

        Lists the sources a saved book is known on (the current one first) with their TOC length and newest
        chapter when last read. --check reads each source's TOC again, one source after another through the
        polite fetcher, and records what it found.

        Options:
          --check             Read every source's TOC now
          --json              Print the sources as JSON
        \(LibraryAccess.help)  -h, --help          Show this help

        Fetching:
        \(FetchOptions.help)
        """
    }

    static func run(_ command: String, _ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["--library", "--source-name", "--book-url"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--yes", "--check", "--json"]))
        } catch {
            terminal.error(UsageMessage.text(error, command: command))
            return 2
        }
        if arguments.has("--help") {
            terminal.print(help(command))
            return 0
        }
        do {
            let expected = command == "switch" ? 2 : 1
            guard arguments.positionals.count == expected else {
                throw UsageError(command == "switch" ? "give BOOK and SOURCE_FILE" : "give one BOOK (its number or part of its name)")
            }
            let store = try LibraryAccess.open(arguments, create: false)
            let book = try LibraryAccess.book(arguments.positionals[0], in: store)
            let stack = try FetchOptions(arguments).stack(terminal: terminal)
            let cache = LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)
            let engine = { @Sendable (source: BookSource) in
                SourceEngine(source: source, transport: stack.transport(for: source).transport,
                             options: EngineOptions(scriptCacheDirectory: cache))
            }
            if command == "switch" {
                let source = try SourceCommand.pickSource(path: arguments.positionals[1], name: arguments.value("--source-name"),
                                                          steps: [.bookInfo, .toc], terminal: terminal)
                return try await switchBook(book, to: source, engine: engine(source), store: store,
                                            arguments: arguments, terminal: terminal)
            }
            return try await list(book, store: store, engine: engine, arguments: arguments, terminal: terminal)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: command))
            return 2
        } catch {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        }
    }

    private static func switchBook(_ book: StoredBook, to source: BookSource, engine: SourceEngine, store: LibraryStore,
                                   arguments: CommandLineArguments, terminal: Terminal) async throws -> Int32 {
        var bookURL = arguments.value("--book-url")
        var variables: [String: String] = [:]
        if bookURL == nil {
            let identity = BookIdentity(name: book.name, author: book.author)
            let page = try await engine.search(key: book.name)
            let found = page.results.first { BookIdentity(name: $0.name, author: $0.author) == identity }
                ?? page.results.first { BookIdentity(name: $0.name, author: "").name == identity.name && $0.author.isEmpty }
            guard let found else {
                terminal.error("error: \(source.name) lists no book \"\(book.name)\" by \(book.author.isEmpty ? "anyone" : book.author) "
                               + "(\(page.results.count) result(s)); give its page with --book-url")
                return 1
            }
            bookURL = found.bookURL
            variables = found.variables
        }
        let info = try await engine.bookInfo(url: bookURL ?? "", variables: variables)
        let toc = try await engine.toc(of: info)
        guard !toc.chapters.isEmpty else {
            terminal.error("error: \(source.name)'s TOC rules found no chapters on \(info.url); nothing changed")
            return 1
        }
        let plan = try store.plannedSwitch(bookID: book.id, chapters: toc.chapters)
        report(plan, book: book, source: source, terminal: terminal)
        guard arguments.has("--yes") else {
            terminal.print("dry run: nothing changed; run again with --yes to switch")
            return 0
        }
        let record = BookSourceRecord(sourceURL: source.url, sourceName: source.name,
                                      json: JSONValue.object(source.json).serialized())
        let done = try store.switchSource(bookID: book.id, source: record, info: info, chapters: toc.chapters)
        terminal.print("switched #\(book.id) \(book.name) to \(source.name): \(done.textsKept) saved chapter(s) kept their text, "
                       + "\(done.alignment.new.count) new to fetch (bookrule fetch)")
        return 0
    }

    private static func report(_ plan: SourceSwitch, book: StoredBook, source: BookSource, terminal: Terminal) {
        let alignment = plan.alignment
        let unsure = alignment.matches.filter { !$0.isCertain }
        terminal.print("#\(book.id) \(book.name): \(plan.savedTitles.count) saved entries, \(plan.incomingTitles.count) on \(source.name)")
        terminal.print("  matched    \(alignment.matches.count) (\(alignment.certain.count) by title, "
                       + "\(unsure.filter { $0.confidence == .position }.count) by position, "
                       + "\(unsure.filter { $0.confidence == .number }.count) by chapter number only)")
        terminal.print("  new        \(alignment.new.count)")
        terminal.print("  unmatched  \(alignment.unmatched.count) (\(plan.textsUnlisted) with saved text, kept but no longer listed)")
        for match in unsure.prefix(20) {
            terminal.print("  ? \(plan.savedTitles[match.saved])  ↔  \(plan.incomingTitles[match.incoming])  (\(match.confidence.rawValue))")
        }
        for index in alignment.unmatched.prefix(20) { terminal.print("  - \(plan.savedTitles[index])") }
    }

    private static func list(_ book: StoredBook, store: LibraryStore, engine: @Sendable (BookSource) -> SourceEngine,
                             arguments: CommandLineArguments, terminal: Terminal) async throws -> Int32 {
        var status: Int32 = 0
        if arguments.has("--check") {
            for known in try store.knownSources(bookID: book.id) {
                do {
                    guard let source = try BookSource.load(bytes: Array(known.json.utf8), path: known.sourceName).first else { continue }
                    let engine = engine(source)
                    let info = try await engine.bookInfo(url: known.bookURL, variables: known.variables)
                    let toc = try await engine.toc(of: info)
                    try store.recordSource(bookID: book.id, source: BookSourceRecord(sourceURL: known.sourceURL, sourceName: known.sourceName,
                                                                                     json: known.json),
                                           bookURL: known.bookURL, variables: known.variables, tocLength: toc.chapters.count,
                                           latestChapter: toc.chapters.last { !$0.isVolume }?.title ?? "")
                } catch {
                    terminal.error("warning: \(known.sourceName): \(error)")
                    status = 1
                }
            }
        }
        let sources = try store.knownSources(bookID: book.id)
        if arguments.has("--json") {
            terminal.print(try JSONWriter.string(sources, style: .pretty))
            return status
        }
        terminal.print("#\(book.id) \(book.name): \(sources.count) source(s)")
        for known in sources {
            let toc = known.tocLength.map { "\($0) entries" } ?? "not checked"
            let latest = known.latestChapter.map { ", latest: \($0)" } ?? ""
            terminal.print("\(known.isCurrent ? "* " : "  ")\(known.sourceName)  \(known.bookURL)  (\(toc)\(latest))")
        }
        return status
    }
}
