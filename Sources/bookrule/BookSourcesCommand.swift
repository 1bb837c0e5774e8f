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
               bookrule sources BOOK --add SOURCE_FILE [--book-url URL] [--source-name NAME]
               bookrule sources BOOK --find FILE_OR_DIR [FILE_OR_DIR…]
               bookrule sources [BOOK] --move-host OLD NEW

        Lists the sources a saved book is known on (the current one first) with their TOC length and newest
        chapter when last read. --check reads each source's TOC again, one source after another through the
        polite fetcher, and records what it found.

        --add records another source of the book without switching to it: the book is found there by searching
        its name (the result with the same name and author) or at --book-url, its TOC is read and aligned with
        the saved chapters, and it is recorded only when at least 90% of them match by title (otherwise it is
        refused, with the counts). Known sources give chapters that fail on the book's source (fallback) and
        share the work of `fetch --mirrors`.

        --find searches every source of the files and folders given for the book and records, as --add does,
        each copy whose alignment is certain; it lists what it recorded, what it rejected and why.

        --move-host OLD NEW: the site moved (OLD and NEW are a host, host:port or http(s)://host[:port]). The book,
        or without BOOK every book with a URL on OLD, takes the new URLs (book, TOC, cover, chapters, known
        sources; sources whose JSON names OLD are rewritten too) in one transaction; saved chapters are kept.

        Options:
          --check             Read every source's TOC now
          --add SOURCE_FILE   Record the book's copy on this source (without switching)
          --source-name NAME  Which source of an array file (--add)
          --book-url URL      The book's page on that source (skips the search; --add)
          --find PATH         Search these sources for the book and record the certain copies; repeat it, or
                              list more paths after BOOK
        \(MultiSearchCommand.collectionHelp)  --move-host OLD NEW Move the book (or every book) from host OLD to NEW
          --json              Print the sources as JSON
        \(LibraryAccess.help)  -h, --help          Show this help

        Fetching:
        \(FetchOptions.help)
        """
    }

    static func run(_ command: String, _ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        var move: (old: String, new: String)?
        do {
            var words = words
            if command == "sources", let index = words.firstIndex(of: "--move-host") {
                guard index + 2 < words.count else { throw UsageError("--move-host needs OLD and NEW") }
                move = (words[index + 1], words[index + 2])
                words.removeSubrange(index...(index + 2))
            }
            arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["--library", "--source-name", "--book-url", "--add", "--find",
                                                                    "--jobs", "--source-timeout"]),
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
            let finding = !arguments.values("--find").isEmpty
            let modes = [arguments.value("--add") != nil, finding, move != nil, arguments.has("--check")].filter { $0 }.count
            guard modes <= 1 else { throw UsageError("give one of --add, --find, --move-host and --check") }
            if command == "switch", modes > 0, !arguments.has("--check") {
                throw UsageError("switch takes BOOK and SOURCE_FILE; --add, --find and --move-host belong to bookrule sources")
            }
            if arguments.has("--json"), command == "sources", modes > 0, !arguments.has("--check") {
                throw UsageError("--json lists the sources; it does not go with --add, --find or --move-host")
            }
            let expected = command == "switch" ? 2 : 1
            let count = arguments.positionals.count
            guard count == expected || (finding && count >= 1) || (move != nil && count <= 1) else {
                throw UsageError(command == "switch" ? "give BOOK and SOURCE_FILE" : "give one BOOK (its number or part of its name)")
            }
            let store = try LibraryAccess.open(arguments, create: false)
            if let move {
                return try moveHost(from: move.old, to: move.new, book: arguments.positionals.first, store: store, terminal: terminal)
            }
            let book = try LibraryAccess.book(arguments.positionals[0], in: store)
            let fetchOptions = try FetchOptions(arguments)
            // Over a collection (--find) a dead source is tried once and left out for the run.
            let stack = try (finding ? fetchOptions.overManySources() : fetchOptions).stack(terminal: terminal)
            let cache = LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)
            let engine = { @Sendable (source: BookSource) in
                SourceEngine(source: source, connection: stack.transport(for: source),
                             options: EngineOptions(scriptCacheDirectory: cache))
            }
            let lookup = BookCopyLookup(store: store, engine: engine)
            let searching = arguments.value("--book-url") == nil
            if command == "switch" || arguments.value("--add") != nil {
                let path = command == "switch" ? arguments.positionals[1] : arguments.value("--add") ?? ""
                let source = try SourceCommand.pickSource(path: path, name: arguments.value("--source-name"),
                                                          steps: (searching ? [.search] : []) + [.bookInfo, .toc], terminal: terminal)
                try noteMoved(source, store: store, terminal: terminal)
                if command == "switch" {
                    return try await switchBook(book, to: source, lookup: lookup, store: store, arguments: arguments, terminal: terminal)
                }
                return try await add(book, source: source, lookup: lookup, arguments: arguments, terminal: terminal)
            }
            if finding {
                let paths = arguments.values("--find") + arguments.positionals.dropFirst()
                return try await find(book, paths: paths, lookup: lookup, arguments: arguments, terminal: terminal)
            }
            return try await list(book, store: store, engine: engine, arguments: arguments, terminal: terminal)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: command))
            return 2
        } catch let error as BookCopyError {
            terminal.error("error: \(error)" + (error.isNotListed ? "; give its page with --book-url" : "; nothing changed"))
            return 1
        } catch {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        }
    }

    /// A note when `source` is a library source whose site moved (`LibraryStore.movedSource(for:)`): `fetch` with
    /// the file moves its books (with the file's `bookSourceUrl`, moved or kept); this command does not.
    static func noteMoved(_ source: BookSource, store: LibraryStore, terminal: Terminal) throws {
        let record = BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: JSONValue.object(source.json).serialized())
        guard let moved = try store.movedSource(for: record) else { return }
        terminal.error("note: \(source.name) is the library's source \(moved.storedURL) moved from \(moved.move.old) to "
                       + "\(moved.move.new) (\(moved.bookIDs.count) book(s)); `bookrule fetch --source` with this file moves "
                       + "them first, keeping their saved chapters (or `bookrule sources --move-host OLD NEW`)")
    }

    private static func add(_ book: StoredBook, source: BookSource, lookup: BookCopyLookup, arguments: CommandLineArguments,
                            terminal: Terminal) async throws -> Int32 {
        let copy = try await lookup.copy(of: book, on: source, bookURL: arguments.value("--book-url"))
        if source.url == book.sourceURL && copy.info.url == book.url {
            terminal.print("#\(book.id) \(book.name) is on \(source.name) already (its current source); nothing changed")
            return 0
        }
        try await lookup.record(copy, bookID: book.id)
        terminal.print("recorded \(source.name) as a source of #\(book.id) \(book.name) (not switched): \(copy.info.url), "
                       + copy.certainty.summary)
        return 0
    }

    private static func find(_ book: StoredBook, paths: [String], lookup: BookCopyLookup, arguments: CommandLineArguments,
                             terminal: Terminal) async throws -> Int32 {
        let collection = SourceCollection(paths: paths)
        for problem in collection.problems { terminal.error("warning: \(problem)") }
        guard !collection.sources.isEmpty else { throw UsageError("no sources could be read from \(paths.joined(separator: ", "))") }
        let report = try await lookup.find(book, in: collection.sources, options: try MultiSearchCommand.searchOptions(arguments))
        var recorded = 0
        for finding in report.findings {
            if let reason = finding.rejection {
                terminal.print("rejected  \(finding.sourceName)  \(finding.bookURL): \(reason)")
            } else {
                recorded += 1
                terminal.print("recorded  \(finding.sourceName)  \(finding.bookURL)  (\(finding.certainty?.summary ?? ""))")
            }
        }
        for (name, failure) in report.failures { terminal.print("failed    \(name) (\(failure.kind.rawValue)): \(failure.message)") }
        terminal.print("searched \(report.searched) source(s) for #\(book.id) \(book.name): \(recorded) recorded, "
                       + "\(report.findings.count - recorded) rejected, \(report.failures.count) failed, "
                       + "\(report.notListing) do not list it" + (report.current > 0 ? ", \(report.current) its current source" : ""))
        return report.failures.count == report.searched ? 1 : 0
    }

    private static func moveHost(from old: String, to new: String, book query: String?, store: LibraryStore,
                                 terminal: Terminal) throws -> Int32 {
        guard let move = HostMove(from: old, to: new) else {
            throw UsageError("--move-host takes two different hosts (host, host:port or http(s)://host[:port]), not \"\(old)\" and \"\(new)\"")
        }
        let ids = try query.map { [try LibraryAccess.book($0, in: store).id] }
        let result = try store.moveHost(move, bookIDs: ids)
        guard !result.bookIDs.isEmpty else {
            terminal.error("error: no book of the library has a URL on \(move.old); nothing changed")
            return 1
        }
        terminal.print("moved \(result.bookIDs.count) book(s) (\(result.bookIDs.map { "#\($0)" }.joined(separator: ", "))) from "
                       + "\(move.old) to \(move.new): \(result.chapters) chapter URL(s) rewritten, \(result.textsKept) saved chapter(s) keep their text")
        for (old, new) in result.sources {
            terminal.print(old == new ? "  source \(old): its URLs rewritten" : "  source \(old) is now \(new)")
        }
        return 0
    }

    private static func switchBook(_ book: StoredBook, to source: BookSource, lookup: BookCopyLookup, store: LibraryStore,
                                   arguments: CommandLineArguments, terminal: Terminal) async throws -> Int32 {
        let copy = try await lookup.copy(of: book, on: source, bookURL: arguments.value("--book-url"))
        let plan = try store.plannedSwitch(bookID: book.id, chapters: copy.chapters)
        report(plan, book: book, source: source, terminal: terminal)
        guard arguments.has("--yes") else {
            terminal.print("dry run: nothing changed; run again with --yes to switch")
            return 0
        }
        let done = try store.switchSource(bookID: book.id, source: copy.record, info: copy.info, chapters: copy.chapters)
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
