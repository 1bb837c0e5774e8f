import BookRule
import Foundation

/// What `fetch`, `export` and `library` share: opening the library, finding a book, building an export.
enum LibraryAccess {
    static let help = "  --library PATH      The library database (default: $XDG_DATA_HOME/bookrule/library.sqlite)\n"

    /// Opens the library; `create` only for fetch, so a mistyped --library for export or list is an error,
    /// not a new empty database.
    static func open(_ arguments: CommandLineArguments, create: Bool) throws -> LibraryStore {
        let path = path(arguments)
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw UsageError("there is no library at \(path) (bookrule fetch creates it; check --library)")
        }
        return try LibraryStore(path: path)
    }

    /// The library's path: `--library`, else the default.
    static func path(_ arguments: CommandLineArguments) -> String {
        arguments.value("--library") ?? LibraryStore.defaultPath()
    }

    /// The one book `query` names: its id, its URL, or part of its title.
    static func book(_ query: String, in store: LibraryStore) throws -> StoredBook {
        let matches = try store.findBooks(matching: query)
        guard let first = matches.first else {
            throw UsageError("no book in the library matches \"\(query)\" (see `bookrule library`)")
        }
        guard matches.count == 1 else {
            let list = matches.prefix(10).map { "#\($0.id) \($0.name)" }.joined(separator: ", ")
            throw UsageError("\"\(query)\" matches \(matches.count) books (\(list)); give the number")
        }
        return first
    }

    /// The help line of `--convert`.
    static let convertHelp = "  --convert t2s|s2t   Convert the export to simplified (t2s) or traditional (s2t) Chinese (OpenCC)\n"

    /// The conversion `--convert` asks for, nil without it.
    static func conversion(_ arguments: CommandLineArguments) throws(UsageError) -> ExportConversion? {
        guard let value = arguments.value("--convert") else { return nil }
        guard let conversion = ExportConversion(rawValue: value) else {
            throw UsageError("--convert takes t2s (to simplified) or s2t (to traditional), not \"\(value)\"")
        }
        return conversion
    }

    /// The help lines of `--no-replace` and `--explain`.
    static let replaceHelp = """
      --no-replace        Write the saved text as it is, without the replace rules (bookrule rules)
      --explain           Say how many matches each replace rule replaced

    """

    /// The library's replace rules (`--library`, or the default library's) for the book `bookName` from
    /// `sourceURL`, nil with `--no-replace`.
    static func replaceRun(_ arguments: CommandLineArguments, bookName: String, sourceURL: String) throws -> ReplaceRuleRun? {
        guard !arguments.has("--no-replace") else { return nil }
        let path = ReplaceRuleSet.path(forLibraryAt: LibraryAccess.path(arguments))
        return ReplaceRuleRun(try ReplaceRuleSet.load(from: path).rules, bookName: bookName, sourceURL: sourceURL)
    }

    /// With `--explain`, each rule's hits in `run`, on standard error.
    static func explain(_ run: ReplaceRuleRun, arguments: CommandLineArguments, terminal: Terminal) {
        guard arguments.has("--explain") else { return }
        for tally in run.tallies {
            terminal.error("replace rule \"\(tally.rule.name)\": \(tally.hits) hit(s)\(tally.disabled ? " (disabled)" : "")")
        }
    }

    /// `export` with the library's replace rules for `book` applied (none with `--no-replace`), and with
    /// `--explain` each rule's hits said on standard error.
    static func replaced(_ export: LibraryExport, book: StoredBook, arguments: CommandLineArguments,
                         terminal: Terminal) throws -> LibraryExport {
        guard let run = try replaceRun(arguments, bookName: book.name, sourceURL: book.sourceURL) else { return export }
        let result = export.replaced(by: run)
        explain(run, arguments: arguments, terminal: terminal)
        return result
    }

    /// The formats asked for with `--epub` and `--txt` (both may be given), EPUB first.
    static func formats(_ arguments: CommandLineArguments) -> [ExportFormat] {
        [ExportFormat.epub, .txt].filter { arguments.has("--" + $0.rawValue) }
    }

    /// Writes `export` in each of `formats` to `output` (see `LibraryExport.write`; with several formats it
    /// names a directory, created when missing) and returns the paths written, warning about what was left out.
    static func write(_ export: LibraryExport, formats: [ExportFormat], output: String?,
                      terminal: Terminal) throws -> [String] {
        for warning in export.warnings { terminal.error("warning: \(warning)") }
        if formats.contains(.epub), let warning = export.missingPicturesWarning { terminal.error("warning: \(warning)") }
        var target = output
        if formats.count > 1, let output, !output.hasSuffix("/") { target = output + "/" }
        return try formats.map { try export.write($0, to: target) }
    }
}
