import BookRule

/// `bookrule export BOOK (--txt | --epub)`: writes a saved book from the library, with no network.
enum ExportCommand {
    static let help = """
    Usage: bookrule export BOOK (--txt | --epub | --txt --epub) [-o PATH] [--convert t2s|s2t] [--library PATH]

    BOOK is the book's number in `bookrule library`, its URL, or part of its title. Chapters not saved yet are
    left out (and counted). The file is named after the title in the current directory unless -o names a
    file or a directory (with both formats, -o is a directory).

    Options:
      --txt, --epub       The format (EPUB 3, or plain UTF-8 text); give both for both
      -o PATH             Output file or directory
    \(LibraryAccess.convertHelp)\(LibraryAccess.help)  -h, --help          Show this help
    """

    static func run(_ words: [String], terminal: Terminal) -> Int32 {
        do {
            let arguments = try CommandLineArguments(words, valueOptions: ["-o", "--library", "--convert"],
                                                     flagOptions: ["--help", "--txt", "--epub"])
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.positionals.count == 1 else { throw UsageError("name one BOOK") }
            let formats = LibraryAccess.formats(arguments)
            guard !formats.isEmpty else { throw UsageError("choose --txt or --epub (or both)") }
            let conversion = try LibraryAccess.conversion(arguments)
            let store = try LibraryAccess.open(arguments, create: false)
            let stored = try LibraryAccess.book(arguments.positionals[0], in: store)
            var export = try LibraryExport(stored, store: store)
            if let conversion { export = try export.converted(conversion) }
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
            return 1
        }
    }
}
