import BookRule
import Foundation

/// `sources BOOK` and `switch BOOK SOURCE_FILE`: the sources a saved book is known on, and moving it to another.
struct BookSourcesCommand: Command {
    static let helps = [
        CommandHelp(
            name: "sources",
            summary: "List the sources a saved book is known on (--check reads them again); --add and --find record "
                + "others, --move-host follows a site that moved",
            usage: ["bookrule sources BOOK [--check] [options]",
                    "bookrule sources BOOK --add SOURCE_FILE [--book-url URL] [--source-name NAME]",
                    "bookrule sources BOOK --find FILE_OR_DIR [FILE_OR_DIR…]",
                    "bookrule sources [BOOK] --move-host OLD NEW"],
            about: """
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
            """,
            groups: [
                OptionGroup([
                    .flag("--check", summary: "Read every source's TOC now"),
                    .value("--add", "SOURCE_FILE", summary: "Record the book's copy on this source (without switching)",
                           completes: .source),
                    .value("--source-name", "NAME", summary: "Which source of an array file (--add)"),
                    .value("--book-url", "URL", summary: "The book's page on that source (skips the search; --add)"),
                    .value("--find", "PATH", summary: "Search these sources for the book and record the certain copies; "
                           + "repeat it, or list more paths after BOOK", completes: .source, repeats: true),
                ] + CollectionSearchOptions.options + [
                    .pair("--move-host", "OLD", "NEW", summary: "Move the book (or every book) from host OLD to NEW"),
                    .flag("--json", summary: "Print the sources as JSON"),
                    LibraryOptions.library,
                ]),
                .fetching(),
            ],
            operands: .source),
        CommandHelp(
            name: "switch",
            summary: "Move a saved book to another source, keeping saved chapters (dry run without --yes)",
            usage: ["bookrule switch BOOK SOURCE_FILE [options]"],
            about: """
            Moves a saved book to another source. The book is found on the source by searching its name (the result
            with the same name and author), or at --book-url; its TOC is read and aligned with the saved chapters by
            normalised title (第十二章 = 第12章 = Chapter 12; volume prefixes, punctuation, spacing and full-width forms
            ignored; position breaks ties). The alignment is printed first: matched (and how sure), new, unmatched.
            Without --yes nothing changes (a dry run). With --yes, in one transaction: matched chapters keep their
            saved text, new ones are added to fetch, unmatched saved chapters are kept but no longer listed, and the
            old source stays known (`bookrule sources BOOK`).
            """,
            groups: [
                OptionGroup([
                    .value("--source-name", "NAME", summary: "Which source of an array file"),
                    .value("--book-url", "URL", summary: "The book's page on the new source (skips the search)"),
                    .flag("--yes", summary: "Switch (without it: report the alignment only)"),
                    LibraryOptions.library,
                ]),
                .fetching(),
            ],
            operands: .source),
    ]

    /// What the command line asks for.
    enum Work {
        /// `sources [BOOK] --move-host OLD NEW`: the book (without BOOK every book with a URL on OLD) takes the new host.
        case moveHost(HostMove, book: String?)
        /// `action` on one saved book, BOOK (its number, URL or part of its title).
        case book(String, Action)
    }

    /// What is done to one saved book.
    enum Action {
        /// List the book's sources; `check`: read each one's TOC again first and record what it found.
        case list(check: Bool)
        /// `sources BOOK --add SOURCE_FILE`: record the book's copy on that source.
        case add(sourceFile: String)
        /// `sources BOOK --find PATH…`: search these sources for the book and record the certain copies.
        case find(paths: [String])
        /// `switch BOOK SOURCE_FILE`: move the book to that source (a dry run unless `confirmed`, `--yes`).
        case switchTo(sourceFile: String, confirmed: Bool)
    }

    /// What the command line asks for, one of the command's kinds of work.
    let work: Work
    /// `--source-name`: which source of an array file (`--add`, `switch`).
    let sourceName: String?
    /// `--book-url`: the book's page on the source, instead of searching for it (`--add`, `switch`).
    let bookURL: String?
    /// `--json`: the list as JSON.
    let json: Bool
    /// `--jobs` and `--source-timeout` (`--find`).
    let collectionSearch: MultiSourceSearch.Options
    /// `--library`, else the default library.
    let libraryPath: String
    /// The fetching options, with a collection's defaults (`FetchOptions.overManySources`) for `--find`.
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        let positionals = arguments.positionals
        var hosts: (old: String, new: String)?
        let moveHost = arguments.values("--move-host")
        if moveHost.count == 2 { hosts = (moveHost[0], moveHost[1]) }
        guard moveHost.count <= 2 else { throw UsageError("give --move-host once") }
        let add = arguments.value("--add")
        let findPaths = arguments.values("--find")
        let finding = !findPaths.isEmpty
        let check = arguments.has("--check")
        json = arguments.has("--json")
        let modes = [add != nil, finding, hosts != nil, check].filter { $0 }.count
        guard modes <= 1 else { throw UsageError("give one of --add, --find, --move-host and --check") }
        let switching = name == "switch"
        if json, !switching, modes > 0, !check {
            throw UsageError("--json lists the sources; it does not go with --add, --find or --move-host")
        }
        let expected = switching ? 2 : 1
        let count = positionals.count
        guard count == expected || (finding && count >= 1) || (hosts != nil && count <= 1) else {
            throw UsageError(switching ? "give BOOK and SOURCE_FILE" : "give one BOOK (its number or part of its name)")
        }
        if let hosts {
            guard let move = HostMove(from: hosts.old, to: hosts.new) else {
                throw UsageError("--move-host takes two different hosts (host, host:port or http(s)://host[:port]), "
                                 + "not \"\(hosts.old)\" and \"\(hosts.new)\"")
            }
            work = .moveHost(move, book: positionals.first)
        } else if switching {
            work = .book(positionals[0], .switchTo(sourceFile: positionals[1], confirmed: arguments.has("--yes")))
        } else if let add {
            work = .book(positionals[0], .add(sourceFile: add))
        } else if finding {
            work = .book(positionals[0], .find(paths: findPaths + positionals.dropFirst()))
        } else {
            work = .book(positionals[0], .list(check: check))
        }
        sourceName = arguments.value("--source-name")
        bookURL = arguments.value("--book-url")
        collectionSearch = try CollectionSearchOptions.read(arguments)
        libraryPath = try LibraryOptions(arguments).path
        let given = try FetchOptions(arguments)
        // Over a collection (--find) a dead source is tried once and left out for the run.
        fetching = finding ? given.overManySources() : given
    }

    func run(terminal: Terminal) async throws -> Int32 {
        do {
            let store = try LibraryAccess.open(libraryPath, create: false)
            switch work {
            case .moveHost(let move, let book):
                return try Self.moveHost(move, book: book, store: store, terminal: terminal)
            case .book(let query, let action):
                return try await run(action, on: try LibraryAccess.book(query, in: store), store: store, terminal: terminal)
            }
        } catch let error as BookCopyError {
            terminal.error("error: \(error)" + (error.isNotListed ? "; give its page with --book-url" : "; nothing changed"))
            return ExitStatus.workFailed.code
        }
    }

    /// Does `action` to `book`, reading its sources through this run's transport stack.
    private func run(_ action: Action, on book: StoredBook, store: LibraryStore, terminal: Terminal) async throws -> Int32 {
        let stack = try fetching.stack(terminal: terminal)
        let cache = LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)
        let engine = { @Sendable (source: BookSource) in
            SourceEngine(source: source, connection: stack.transport(for: source),
                         options: EngineOptions(scriptCacheDirectory: cache))
        }
        let lookup = BookCopyLookup(store: store, engine: engine)
        let steps: [SourceStep] = (bookURL == nil ? [.search] : []) + [.bookInfo, .toc]
        switch action {
        case .switchTo(let path, let confirmed):
            let source = try SourceCommand.pickSource(path: path, name: sourceName, steps: steps, terminal: terminal)
            try Self.noteMoved(source, store: store, terminal: terminal)
            return try await switchBook(book, to: source, confirmed: confirmed, lookup: lookup, store: store, terminal: terminal)
        case .add(let path):
            let source = try SourceCommand.pickSource(path: path, name: sourceName, steps: steps, terminal: terminal)
            try Self.noteMoved(source, store: store, terminal: terminal)
            return try await add(book, source: source, lookup: lookup, terminal: terminal)
        case .find(let paths):
            return try await find(book, paths: paths, lookup: lookup, terminal: terminal)
        case .list(let check):
            return try await list(book, check: check, store: store, engine: engine, terminal: terminal)
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

    private func add(_ book: StoredBook, source: BookSource, lookup: BookCopyLookup, terminal: Terminal) async throws -> Int32 {
        let copy = try await lookup.copy(of: book, on: source, bookURL: bookURL)
        if source.url == book.sourceURL && copy.info.url == book.url {
            terminal.print("#\(book.id) \(book.name) is on \(source.name) already (its current source); nothing changed")
            return 0
        }
        try await lookup.record(copy, bookID: book.id)
        terminal.print("recorded \(source.name) as a source of #\(book.id) \(book.name) (not switched): \(copy.info.url), "
                       + copy.certainty.summary)
        return 0
    }

    private func find(_ book: StoredBook, paths: [String], lookup: BookCopyLookup, terminal: Terminal) async throws -> Int32 {
        let collection = SourceCollection(paths: paths)
        for problem in collection.problems { terminal.error("warning: \(problem)") }
        guard !collection.sources.isEmpty else { throw UsageError("no sources could be read from \(paths.joined(separator: ", "))") }
        let report = try await lookup.find(book, in: collection.sources, options: collectionSearch)
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

    private static func moveHost(_ move: HostMove, book query: String?, store: LibraryStore, terminal: Terminal) throws -> Int32 {
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

    private func switchBook(_ book: StoredBook, to source: BookSource, confirmed: Bool, lookup: BookCopyLookup,
                            store: LibraryStore, terminal: Terminal) async throws -> Int32 {
        let copy = try await lookup.copy(of: book, on: source, bookURL: bookURL)
        let plan = try store.plannedSwitch(bookID: book.id, chapters: copy.chapters)
        Self.report(plan, book: book, source: source, terminal: terminal)
        guard confirmed else {
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

    private func list(_ book: StoredBook, check: Bool, store: LibraryStore, engine: @Sendable (BookSource) -> SourceEngine,
                      terminal: Terminal) async throws -> Int32 {
        var status: Int32 = 0
        if check {
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
        if json {
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
