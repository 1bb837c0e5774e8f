import BookRule
import Foundation
import Testing
@testable import bookrule

/// The README's "For app developers" example, line for line, with the recording in place of the live fetcher
/// (the only difference): what an app gets must be exactly what `bookrule fetch` gets.
private func readmeExample(source path: String, transport: any HTTPTransport, library: String, output: String,
                           bookURL: String) async throws -> String {
    let source = try BookSource.load(contentsOf: path)[0]
    let store = try LibraryStore(path: library)
    let fetch = BookFetch(source: source, transport: transport, store: store)
    var book: StoredBook?
    for try await event in fetch.run(bookURL: bookURL) {
        if case .finished(let summary) = event { book = summary.book }
    }
    guard let book else { throw CLITestFailure("the download did not finish") }
    let export = try LibraryExport(book, store: store)
    return try export.write(.txt, to: output)
}

struct CLITestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

@Suite("The app API gets what the command line gets")
struct AppExampleTests {
    static let source = repositoryRoot + "/Sources-json/example-gbk.json"
    static let recording = repositoryRoot + "/Fixtures/example-gbk/book.har"
    static let bookURL = "http://127.0.0.1:8791/book/102/"

    @Test("the README's example on the example fixture: the same library, the same export as bookrule fetch --replay")
    func sameAsFetch() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The command line, exporting both formats at once (defect 3: --epub --txt -o DIR writes both).
        let terminal = Terminal.capture()
        let status = await BookruleCLI.run([
            "fetch", "--source", Self.source, "--replay", Self.recording, Self.bookURL,
            "--library", directory + "/cli.sqlite", "--epub", "--txt", "-o", directory + "/cli",
        ], terminal: terminal)
        #expect(status == 0, "\(terminal.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/cli").sorted() == ["长夜灯火.epub", "长夜灯火.txt"])

        // The README's code.
        let appTXT = try await readmeExample(source: Self.source, transport: try HARReplayTransport(contentsOf: Self.recording),
                                             library: directory + "/app.sqlite", output: directory + "/app/",
                                             bookURL: Self.bookURL)

        // The same library: books, chapters (state and text) and the book as an exporter sees it.
        let cli = try LibraryStore(path: directory + "/cli.sqlite")
        let app = try LibraryStore(path: directory + "/app.sqlite")
        let cliBooks = try cli.books()
        let appBooks = try app.books()
        #expect(cliBooks.count == 1 && appBooks.count == 1)
        let cliBook = try #require(cliBooks.first)
        let appBook = try #require(appBooks.first)
        #expect([cliBook.name, cliBook.author, cliBook.intro, cliBook.url, cliBook.coverURL, cliBook.sourceURL]
                == [appBook.name, appBook.author, appBook.intro, appBook.url, appBook.coverURL, appBook.sourceURL])
        #expect(cliBook.doneCount == appBook.doneCount && cliBook.chapterCount == appBook.chapterCount)
        #expect(cliBook.doneCount == 12)
        let cliChapters = try cli.chapters(bookID: cliBook.id)
        let appChapters = try app.chapters(bookID: appBook.id)
        #expect(cliChapters.map(\.url) == appChapters.map(\.url))
        #expect(cliChapters.map(\.title) == appChapters.map(\.title))
        for chapter in cliChapters where !chapter.isVolume {
            #expect(try cli.text(bookID: cliBook.id, url: chapter.url) == app.text(bookID: appBook.id, url: chapter.url))
        }
        let cliExport = try LibraryExport(cliBook, store: cli)
        let appExport = try LibraryExport(appBook, store: app)
        #expect(cliExport.book == appExport.book)
        #expect(cliExport.missing == 0 && appExport.missing == 0)
        // And the same file.
        #expect(FileManager.default.contents(atPath: appTXT) == FileManager.default.contents(atPath: directory + "/cli/长夜灯火.txt"))
    }

    @Test("the README shows the API the test runs")
    func readmeShowsIt() throws {
        let readme = try String(contentsOfFile: repositoryRoot + "/README.md", encoding: .utf8)
        for line in [
            "let source = try BookSource.load(contentsOf:", "let store = try LibraryStore(path:",
            "let fetch = BookFetch(source: source, transport:", "for try await event in fetch.run(bookURL:",
            "if case .finished(let summary) = event { book = summary.book }", "let export = try LibraryExport(book, store: store)",
        ] {
            #expect(readme.contains(line), "README.md lacks \(line)")
        }
    }
}

@Suite("Defects a new user found in the command line")
struct CommandLineDefectTests {
    func run(_ arguments: [String]) async -> (status: Int32, terminal: Terminal) {
        let terminal = Terminal.capture()
        return (await BookruleCLI.run(arguments, terminal: terminal), terminal)
    }

    func sourceFile(_ json: String) throws -> String {
        let directory = try temporaryDirectory()
        let path = directory + "/source.json"
        try LocalFile.writeAtomically(Array(json.utf8), to: path)
        return path
    }

    @Test("a usage error prints the error and where the help is, not the whole help")
    func usageError() async {
        let (status, terminal) = await run(["fetch", "--bogus"])
        #expect(status == 2)
        #expect(terminal.errors == "error: unknown option --bogus\nsee 'bookrule fetch --help'\n")
        let export = await run(["export", "x"])
        #expect(export.status == 2)
        #expect(export.terminal.errors == "error: choose --txt or --epub (or both)\nsee 'bookrule export --help'\n")
        let toc = await run(["toc", "--source"])
        #expect(toc.terminal.errors == "error: --source needs a value\nsee 'bookrule toc --help'\n")
    }

    @Test("a source without bookSourceUrl is refused by every step, naming the field as lint does")
    func missingSourceURL() async throws {
        let path = try sourceFile("""
            {"bookSourceName": "no url", "searchUrl": "/search.php?q={{key}}",
             "ruleSearch": {"bookList": "//li", "name": "//a/text()", "bookUrl": "//a/@href"},
             "ruleToc": {"chapterList": "//li/a", "chapterName": "text()", "chapterUrl": "@href"},
             "ruleContent": {"content": "//div"}}
            """)
        let lint = await run(["lint", path])
        let wording = "bookSourceUrl: missing: every source needs its site's URL"
        #expect(lint.terminal.output.contains(wording))
        for arguments in [["toc", "--source", path, "--toc-url", "http://127.0.0.1:1/toc"],
                          ["search", "--source", path, "星河"],
                          ["info", "--source", path, "http://127.0.0.1:1/book"],
                          ["chapter", "--source", path, "http://127.0.0.1:1/1.html"]] {
            let (status, terminal) = await run(arguments)
            #expect(status == 2, "\(arguments[0]): \(terminal.errors)")
            #expect(terminal.errors.contains(wording), "\(arguments[0]): \(terminal.errors)")
            #expect(!terminal.errors.contains("against \n") && !terminal.errors.hasSuffix("against "))
        }
    }

    @Test("a ruleToc that is an array is reported as lint reports it; a problem elsewhere is a warning")
    func sectionOfTheWrongType() async throws {
        let path = try sourceFile("""
            {"bookSourceUrl": "http://127.0.0.1:1", "bookSourceName": "array toc",
             "ruleToc": [{"chapterList": "//li/a"}],
             "ruleSearch": {"bookList": "//li", "name": "@js:result.("},
             "ruleContent": {"content": "//div"}}
            """)
        let lint = await run(["lint", path])
        #expect(lint.terminal.output.contains("ruleToc: expected an object or a JSON string, found array"))
        let toc = await run(["toc", "--source", path, "--toc-url", "http://127.0.0.1:1/toc"])
        #expect(toc.status == 2)
        #expect(toc.terminal.errors.contains("ruleToc: expected an object or a JSON string, found array"))
        #expect(!toc.terminal.errors.contains("no ruleToc.chapterList rule"))
        // The search rule's broken JavaScript does not stop the TOC step: a warning, in lint's words.
        #expect(toc.terminal.errors.contains("warning: ruleSearch.name (JavaScript): JavaScript syntax error"))
    }
}

@Suite("The fetch progress bar")
struct ProgressBarTests {
    func event(_ url: String, wait: Duration = .zero) -> FetchEvent {
        FetchEvent(time: Date(), origin: URLOrigin(url) ?? URLOrigin("http://127.0.0.1/")!, method: "GET", url: url, attempt: 1, status: 200, bytes: 100,
                   wait: wait, duration: .milliseconds(10), retryReason: nil, error: nil, userAgent: "test")
    }

    @Test("while the book page and TOC are read, the bar counts the pages read instead of showing 0/0")
    func tocPhase() {
        let terminal = Terminal.capture()
        let display = ProgressDisplay(terminal: terminal, mode: .bar)
        display.handle(event("http://127.0.0.1/book/1/"))
        display.handle(event("http://127.0.0.1/book/1/toc.html"))
        display.handle(event("http://127.0.0.1/book/1/toc_2.html", wait: .seconds(3)))
        #expect(terminal.errors.contains("reading the book page and TOC: 3 page(s) read"))
        #expect(!terminal.errors.contains("0/0"))
        display.handle(.started(total: 5, alreadySaved: 1, toFetch: 4))
        display.handle(.chapterStarted(position: 1, title: "第二章"))
        #expect(terminal.errors.contains("1/5"))
    }
}
