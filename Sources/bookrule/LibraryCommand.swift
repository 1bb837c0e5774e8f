import BookRule
import Foundation

/// `bookrule library`: lists the saved books; `bookrule library remove BOOK` deletes one.
struct LibraryCommand: Command {
    static let helps = [CommandHelp(
        name: "library", summary: "List saved books, or remove one",
        usage: ["bookrule library [list] [--json] [--library PATH]",
                "bookrule library remove BOOK [--library PATH]"],
        about: """
        Lists every book with its chapters saved/total, failures, last update and where its reader is (the
        progress `bookrule serve`'s clients save), or removes a book (its saved
        chapters and cover) from the library. BOOK is a number from the list, a URL, or part of a title.
        """,
        groups: [OptionGroup([
            LibraryOptions.library,
            .flag("--json", summary: "Print the list as JSON"),
        ])],
        subcommands: ["list", "remove"])]

    /// The subcommand, with its operand.
    enum Action {
        /// `list` (also with no subcommand): every saved book.
        case list
        /// `remove BOOK`: BOOK's number, URL or part of its title.
        case remove(String)
    }

    /// The subcommand, with its operands.
    let action: Action
    /// `--json`: the list as JSON.
    let json: Bool
    /// `--library`, else the default library.
    let libraryPath: String

    init(name: String, arguments: CommandLineArguments) throws {
        let positionals = arguments.positionals
        switch positionals.first ?? "list" {
        case "list":
            guard positionals.count <= 1 else { throw UsageError("`library list` takes no arguments") }
            action = .list
        case "remove":
            guard positionals.count == 2 else { throw UsageError("name one BOOK to remove") }
            action = .remove(positionals[1])
        case let word:
            throw UsageError("unknown library command \"\(word)\" (list or remove)")
        }
        json = arguments.has("--json")
        libraryPath = try LibraryOptions(arguments).path
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let store = try LibraryAccess.open(libraryPath, create: false)
        switch action {
        case .list:
            // "Updated" is the last save, not the start of the run that made it.
            let books = try store.books().map { book throws(LibraryError) -> StoredBook in
                var book = book
                book.updatedAt = try store.lastSaved(book)
                return book
            }
            let progress = try store.readingProgress()
            if json {
                terminal.print(try JSONWriter.string(books.map { ListedBook(book: $0, progress: progress[$0.id]) }, style: .pretty))
                return 0
            }
            if books.isEmpty { terminal.print("the library is empty (bookrule fetch adds books)") }
            let formatter = ISO8601DateFormatter()
            for book in books {
                let failed = book.failedCount > 0 ? ", \(book.failedCount) failed" : ""
                terminal.print("#\(book.id)  \(book.name)\(book.author.isEmpty ? "" : " — \(book.author)")  "
                               + "\(book.doneCount)/\(book.chapterCount) chapters\(failed)  updated \(formatter.string(from: book.updatedAt))")
                terminal.print("     \(book.url)  (\(book.sourceName))")
                if let place = progress[book.id] {
                    // Where a reader is, as `bookrule serve`'s clients saved it (index 0 is the first TOC entry).
                    terminal.print("     reading \(place.chapterIndex + 1). \(place.chapterTitle)  "
                                   + "at \(place.chapterPosition), \(formatter.string(from: place.readAt))")
                }
            }
        case .remove(let query):
            let book = try LibraryAccess.book(query, in: store)
            try store.removeBook(id: book.id)
            terminal.print("removed #\(book.id) \(book.name)")
        }
        return 0
    }
}

/// A book as `library --json` lists it: the stored book's fields, and `progress` where a reader is (`bookrule
/// serve`'s clients save it), absent when none was saved.
private struct ListedBook: Encodable {
    let book: StoredBook
    let progress: ReadingProgress?

    private enum Key: String, CodingKey {
        case progress
    }

    func encode(to encoder: any Encoder) throws {
        try book.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(progress, forKey: .progress)
    }
}
