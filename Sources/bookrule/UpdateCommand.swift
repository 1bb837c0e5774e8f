import BookRule
import Foundation

/// `bookrule update [BOOK…|--all]`: fetches the chapters new since the last run of each saved book and prints
/// a table of what each book gained.
struct UpdateCommand: Command {
    static let helps = [CommandHelp(
        name: "update", summary: "Fetch only the new chapters of saved books (--all for every book), with a summary table",
        usage: ["bookrule update (BOOK… | --all) [options]"],
        about: """
        For each book (its number in `bookrule library`, its URL or part of its title; --all for every book),
        reads the book page and TOC once on the book's current source (kept in the library) and fetches only the
        chapters not saved yet: chapters new in the TOC, and ones that failed before. Politely and resumably as
        `bookrule fetch`: an interrupted update loses at most the chapter in flight; run it again to resume.
        Prints a table: book, new chapters, saved, failed, still missing. Exit status 1 when a book could not be
        read or has chapters still missing.
        """,
        groups: [
            OptionGroup([
                .flag("--all", summary: "Every book in the library"),
                LibraryOptions.library,
            ]),
            .fetching(),
        ])]

    /// The BOOKs to update (their numbers, URLs or parts of their titles), nil with `--all` (every book).
    let queries: [String]?
    /// `--library`, else the default library.
    let libraryPath: String
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        let all = arguments.has("--all")
        guard all != !arguments.positionals.isEmpty else { throw UsageError("name the BOOKs to update, or --all") }
        queries = all ? nil : arguments.positionals
        libraryPath = try LibraryOptions(arguments).path
        fetching = try FetchOptions(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let update: LibraryUpdate
        let books: [StoredBook]
        let display = ProgressDisplay(terminal: terminal, mode: ProgressDisplay.mode(json: false))
        // Nothing could run when the library, a book or the transport cannot be had: exit status 2, whatever
        // the error (`ExitStatus(for:)` would say 1 for some).
        do {
            let store = try LibraryAccess.open(libraryPath, create: false)
            var chosen: [StoredBook] = []
            if let queries {
                for query in queries {
                    let book = try LibraryAccess.book(query, in: store)
                    if !chosen.contains(where: { $0.id == book.id }) { chosen.append(book) }
                }
            } else {
                chosen = try store.books()
            }
            books = chosen
            let stack = try fetching.stack(terminal: terminal, observe: { display.handle($0) }, waits: { display.handle($0) })
            update = LibraryUpdate(store: store, stack: stack,
                                   options: EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: store.path)))
        } catch let error as UsageError {
            throw error
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus.cannotRun.code
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
        terminal.print(Self.table(outcomes))
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
