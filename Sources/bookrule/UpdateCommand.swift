import BookRule
import Foundation

/// `bookrule update [BOOK…|--all]`: fetches the chapters new since the last run of each saved book and prints
/// a table of what each book gained.
enum UpdateCommand {
    static let help = """
    Usage: bookrule update (BOOK… | --all) [options]

    For each book (its number in `bookrule library`, its URL or part of its title; --all for every book),
    reads the book page and TOC once on the book's current source (kept in the library) and fetches only the
    chapters not saved yet: chapters new in the TOC, and ones that failed before. Politely and resumably as
    `bookrule fetch`: an interrupted update loses at most the chapter in flight; run it again to resume.
    Prints a table: book, new chapters, saved, failed, still missing. Exit status 1 when a book could not be
    read or has chapters still missing.

    Options:
      --all               Every book in the library
    \(LibraryAccess.help)  -h, --help          Show this help

    Fetching:
    \(FetchOptions.help)
    """

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        let update: LibraryUpdate
        let books: [StoredBook]
        let display = ProgressDisplay(terminal: terminal, mode: ProgressDisplay.mode(json: false))
        do {
            arguments = try CommandLineArguments(words, valueOptions: FetchOptions.valueNames.union(["--library"]),
                                                 flagOptions: FetchOptions.flagNames.union(["--help", "--all"]))
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.has("--all") != !arguments.positionals.isEmpty else {
                throw UsageError("name the BOOKs to update, or --all")
            }
            let store = try LibraryAccess.open(arguments, create: false)
            var chosen: [StoredBook] = []
            if arguments.has("--all") {
                chosen = try store.books()
            } else {
                for query in arguments.positionals {
                    let book = try LibraryAccess.book(query, in: store)
                    if !chosen.contains(where: { $0.id == book.id }) { chosen.append(book) }
                }
            }
            books = chosen
            let options = try FetchOptions(arguments)
            let stack = try options.stack(terminal: terminal, observe: { display.handle($0) }, waits: { display.handle($0) })
            update = LibraryUpdate(store: store, stack: stack,
                                   options: EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)))
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "update"))
            return 2
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return 2
        }

        let work = Task { () async -> [LibraryUpdate.Outcome] in
            var outcomes: [LibraryUpdate.Outcome] = []
            for await event in update.run(books: books) {
                switch event {
                case .bookStarted: break
                case .download(let download): display.handle(download)
                case .bookFinished(let outcome): outcomes.append(outcome)
                }
            }
            return outcomes
        }
        let interrupts = InterruptHandler { work.cancel() }
        let outcomes = await work.value
        interrupts.stop()
        display.endBarLine()
        terminal.print(table(outcomes))
        if outcomes.contains(where: \.cancelled) || outcomes.count < books.count {
            terminal.error("interrupted: everything saved so far is kept; run the same command again to resume")
            return 1
        }
        return outcomes.allSatisfy { $0.problem == nil && $0.missing == 0 } ? 0 : 1
    }

    /// The summary: one row per book (columns padded to terminal width, CJK counting double), then the
    /// problems below it.
    static func table(_ outcomes: [LibraryUpdate.Outcome]) -> String {
        let header = ["book", "new", "saved", "failed", "missing"]
        let rows = outcomes.map { outcome in
            ["#\(outcome.book.id) \(outcome.book.name)", "\(outcome.newChapters)", "\(outcome.saved)", "\(outcome.failed)",
             "\(outcome.missing)"]
        }
        let widths = header.indices.map { column in
            ([header] + rows).map { DisplayWidth.columns($0[column]) }.max() ?? 0
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - DisplayWidth.columns(cell))
                return column == 0 ? cell + pad : pad + cell
            }.joined(separator: "  ")
        }
        var lines = [render(header)] + rows.map(render)
        for outcome in outcomes {
            if let problem = outcome.problem { lines.append("#\(outcome.book.id) \(outcome.book.name): \(problem)") }
        }
        return lines.joined(separator: "\n")
    }
}
