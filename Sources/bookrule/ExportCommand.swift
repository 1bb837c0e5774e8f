import BookRule

/// `bookrule export BOOK (--txt | --epub)`: writes a saved book from the library; the network is used only
/// for an EPUB's pictures the library does not hold yet (none with `--offline`).
enum ExportCommand {
    static let help = """
    Usage: bookrule export BOOK (--txt | --epub | --txt --epub) [-o PATH] [--convert t2s|s2t] [--no-replace] [--explain] [--offline] [--library PATH]

    BOOK is the book's number in `bookrule library`, its URL, or part of its title. Chapters not saved yet are
    left out (and counted). The file is named after the title in the current directory unless -o names a
    file or a directory (with both formats, -o is a directory). Pictures in the chapters' text go into an
    EPUB: those not in the library yet (bookrule fetch keeps them) are fetched first, politely, through the
    book's source, and kept; one that cannot be fetched appears as "[图片] URL" with a warning. TXT shows
    every picture as "[图片] URL". The library's replace rules (bookrule rules) change the titles and text
    written, after --convert; the saved text stays as it is.

    Options:
      --txt, --epub       The format (EPUB 3, or plain UTF-8 text); give both for both
      -o PATH             Output file or directory
      --offline           Fetch no pictures: those not in the library appear as their URL
    \(LibraryAccess.convertHelp)\(LibraryAccess.replaceHelp)\(LibraryAccess.help)  -h, --help          Show this help

    Fetching (pictures):
    \(FetchOptions.help)
    """

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        do {
            let arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["-o", "--library", "--convert"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--txt", "--epub", "--offline", "--no-replace", "--explain"]))
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.positionals.count == 1 else { throw UsageError("name one BOOK") }
            let formats = LibraryAccess.formats(arguments)
            guard !formats.isEmpty else { throw UsageError("choose --txt or --epub (or both)") }
            let conversion = try LibraryAccess.conversion(arguments)
            let fetchOptions = try FetchOptions(arguments)
            let store = try LibraryAccess.open(arguments, create: false)
            let stored = try LibraryAccess.book(arguments.positionals[0], in: store)
            if formats.contains(.epub) && !arguments.has("--offline") {
                try await fetchPictures(of: stored, store: store, stack: fetchOptions.stack(terminal: terminal),
                                        terminal: terminal)
            }
            var export = try LibraryExport(stored, store: store)
            if let conversion { export = try export.converted(conversion) }
            export = try LibraryAccess.replaced(export, book: stored, arguments: arguments, terminal: terminal)
            for path in try LibraryAccess.write(export, formats: formats, output: arguments.value("-o"), terminal: terminal) {
                terminal.print(path)
            }
            terminal.error("exported \(export.chapterCount) chapter(s)"
                           + (export.missing > 0 ? "; \(export.missing) not saved yet (run bookrule fetch to complete the book)" : ""))
            return 0
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "export"))
            return 2
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        }
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
