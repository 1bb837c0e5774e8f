import BookRule
import Foundation

/// `bookrule library`: lists the saved books; `bookrule library remove BOOK` deletes one.
enum LibraryCommand {
    static let help = """
    Usage: bookrule library [list] [--json] [--library PATH]
           bookrule library remove BOOK [--library PATH]

    Lists every book with its chapters saved/total, failures, last update and where its reader is (the
    progress `bookrule serve`'s clients save), or removes a book (its saved
    chapters and cover) from the library. BOOK is a number from the list, a URL, or part of a title.

    Options:
    \(LibraryAccess.help)  --json              Print the list as JSON
      -h, --help          Show this help
    """

    static func run(_ words: [String], terminal: Terminal) -> Int32 {
        do {
            let arguments = try CommandLineArguments(words, valueOptions: ["--library"], flagOptions: ["--help", "--json"])
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            let store = try LibraryAccess.open(arguments, create: false)
            switch arguments.positionals.first ?? "list" {
            case "list":
                guard arguments.positionals.count <= 1 else { throw UsageError("`library list` takes no arguments") }
                // "Updated" is the last save, not the start of the run that made it.
                let books = try store.books().map { book throws(LibraryError) -> StoredBook in
                    var book = book
                    book.updatedAt = try store.lastSaved(book)
                    return book
                }
                let progress = try store.readingProgress()
                if arguments.has("--json") {
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
            case "remove":
                guard arguments.positionals.count == 2 else { throw UsageError("name one BOOK to remove") }
                let book = try LibraryAccess.book(arguments.positionals[1], in: store)
                try store.removeBook(id: book.id)
                terminal.print("removed #\(book.id) \(book.name)")
            default:
                throw UsageError("unknown library command \"\(arguments.positionals[0])\" (list or remove)")
            }
            return 0
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "library"))
            return 2
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        }
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
