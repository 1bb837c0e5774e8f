import BookRule

/// `bookrule export BOOK (--txt | --epub)`: writes a saved book from the library; the network is used only
/// for an EPUB's pictures the library does not hold yet (none with `--offline`).
struct ExportCommand: Command {
    static let helps = [CommandHelp(
        name: "export", summary: "Write a saved book as EPUB or TXT",
        usage: ["bookrule export BOOK (--txt | --epub | --txt --epub) [-o PATH] [--convert t2s|s2t]",
                "                [--no-replace] [--explain] [--offline] [--library PATH]"],
        about: """
        BOOK is the book's number in `bookrule library`, its URL, or part of its title. Chapters not saved yet are
        left out (and counted). The file is named after the title in the current directory unless -o names a
        file or a directory (with both formats, -o is a directory). Pictures in the chapters' text go into an
        EPUB: those not in the library yet (bookrule fetch keeps them) are fetched first, politely, through the
        book's source, and kept; one that cannot be fetched appears as "[图片] URL" with a warning. TXT shows
        every picture as "[图片] URL". The library's replace rules (bookrule rules) change the titles and text
        written, after --convert; the saved text stays as it is.
        """,
        groups: [OptionGroup(options), .fetching("Fetching (pictures)")])]

    /// The options of its own, before the fetching ones.
    private static let options: [CommandOption] = {
        var options = LibraryAccess.formatOptions
        options.append(.value("-o", "PATH", summary: "Output file or directory", completes: .file))
        options.append(.flag("--offline", summary: "Fetch no pictures: those not in the library appear as their URL"))
        options.append(LibraryOptions.convert)
        options += LibraryOptions.replace
        options.append(LibraryOptions.library)
        return options
    }()

    /// BOOK: its number, URL or part of its title.
    let book: String
    /// `--epub` and `--txt`: the formats to write (EPUB first), none for no export.
    let formats: [ExportFormat]
    /// `-o`.
    let output: String?
    /// `--offline`: fetch no pictures.
    let offline: Bool
    /// `--library`, `--convert`, `--no-replace` and `--explain`.
    let library: LibraryOptions
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.count == 1 else { throw UsageError("name one BOOK") }
        book = arguments.positionals[0]
        formats = LibraryAccess.formats(arguments)
        guard !formats.isEmpty else { throw UsageError("choose --txt or --epub (or both)") }
        output = arguments.value("-o")
        offline = arguments.has("--offline")
        library = try LibraryOptions(arguments)
        fetching = try FetchOptions(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let store = try LibraryAccess.open(library.path, create: false)
        let stored = try LibraryAccess.book(book, in: store)
        if formats.contains(.epub) && !offline {
            try await Self.fetchPictures(of: stored, store: store, stack: fetching.stack(terminal: terminal), terminal: terminal)
        }
        let export = try LibraryAccess.export(stored, store: store, library: library, terminal: terminal)
        for path in try LibraryAccess.write(export, formats: formats, output: output, terminal: terminal) {
            terminal.print(path)
        }
        terminal.error("exported \(export.chapterCount) chapter(s)"
                       + (export.missing > 0 ? "; \(export.missing) not saved yet (run bookrule fetch to complete the book)" : ""))
        return 0
    }

    /// Brings the book's pictures not in the library yet into it (`PictureFetch` through `stack`: the source's
    /// cookie jar and stored login), warning about each that could not be kept; says nothing when the book has
    /// no pictures or all are kept.
    static func fetchPictures(of book: StoredBook, store: LibraryStore, stack: TransportStack,
                              terminal: Terminal) async throws {
        let fetch = PictureFetch.forBook(book, store: store, stack: stack)
        let report = try await fetch.run(bookID: book.id, store: store)
        if report.fetched > 0 || !report.problems.isEmpty {
            terminal.error("pictures: \(report.fetched) fetched, \(report.alreadyKept) already kept, "
                           + "\(report.problems.count) not available")
        }
        for problem in report.problems.prefix(10) { terminal.error("warning: \(problem)") }
        if report.problems.count > 10 { terminal.error("warning: \(report.problems.count - 10) more picture(s) not available") }
    }
}
