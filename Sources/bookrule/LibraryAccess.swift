import BookRule
import Foundation

/// What `fetch`, `export` and `library` share: opening the library, finding a book, building an export.
enum LibraryAccess {
    /// Opens the library at `path`; `create` only for fetch, so a mistyped --library for export or list is an
    /// error, not a new empty database.
    static func open(_ path: String, create: Bool) throws -> LibraryStore {
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw UsageError("there is no library at \(path) (bookrule fetch creates it; check --library)")
        }
        return try LibraryStore(path: path)
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

    /// The library's replace rules (`--library`, or the default library's) for the book `bookName` from
    /// `sourceURL`, nil with `--no-replace`.
    static func replaceRun(_ library: LibraryOptions, bookName: String, sourceURL: String) throws -> ReplaceRuleRun? {
        guard library.replaces else { return nil }
        let path = ReplaceRuleSet.path(forLibraryAt: library.path)
        return ReplaceRuleRun(try ReplaceRuleSet.load(from: path).rules, bookName: bookName, sourceURL: sourceURL)
    }

    /// With `--explain`, each rule's hits in `run`, on standard error.
    static func explain(_ run: ReplaceRuleRun, library: LibraryOptions, terminal: Terminal) {
        guard library.explains else { return }
        for tally in run.tallies {
            terminal.error("replace rule \"\(tally.rule.name)\": \(tally.hits) hit(s)\(tally.disabled ? " (disabled)" : "")")
        }
    }

    /// `export` with the library's replace rules for `book` applied (none with `--no-replace`), and with
    /// `--explain` each rule's hits said on standard error.
    private static func replaced(_ export: LibraryExport, book: StoredBook, library: LibraryOptions,
                         terminal: Terminal) throws -> LibraryExport {
        guard let run = try replaceRun(library, bookName: book.name, sourceURL: book.sourceURL) else { return export }
        let result = export.replaced(by: run)
        explain(run, library: library, terminal: terminal)
        return result
    }

    /// `--txt` and `--epub`, which `export` and `fetch` take.
    static let formatOptions: [CommandOption] = [
        .flag("--txt", summary: "Plain UTF-8 text"),
        .flag("--epub", summary: "EPUB 3 (give both for both files)"),
    ]

    /// The formats asked for with `--epub` and `--txt` (both may be given), EPUB first.
    static func formats(_ arguments: CommandLineArguments) -> [ExportFormat] {
        [ExportFormat.epub, .txt].filter { arguments.has("--" + $0.rawValue) }
    }

    /// The whole export a command asks for, `LibraryExport` in place of the library's text: the conversion,
    /// then the replace rules (with `--explain` said on standard error).
    static func export(_ book: StoredBook, store: LibraryStore, library: LibraryOptions, terminal: Terminal) throws -> LibraryExport {
        var export = try LibraryExport(book, store: store)
        if let conversion = library.conversion { export = try export.converted(conversion) }
        return try replaced(export, book: book, library: library, terminal: terminal)
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
