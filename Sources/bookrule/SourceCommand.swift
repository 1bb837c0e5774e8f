import BookRule
import Foundation

/// `search`, `info`, `toc`, `chapter` and `explore`: run one step of a source against its site (or a HAR
/// recording).
struct SourceCommand: Command {
    static let helps = [
        help("search", summary: "Search a site (--source) or many at once (--sources) and list the books found",
             usage: "bookrule search --source FILE KEYWORD [--page N]",
             about: "Searches the site with the source's searchUrl and lists every book found.",
             options: [.value("--page", "N", summary: "Results page to fetch (default 1)")],
             note: "  (many sources at once: bookrule search KEYWORD --sources FILE_OR_DIR…; see search --sources x --help)"),
        help("info", summary: "Read a book page", usage: "bookrule info --source FILE BOOK_URL",
             about: "Reads a book page with ruleBookInfo.", options: []),
        help("toc", summary: "Read a book's whole table of contents",
             usage: "bookrule toc --source FILE BOOK_URL [--toc-url]",
             about: "Reads the book page for its TOC URL, then every TOC page (following nextTocUrl).",
             options: [.flag("--toc-url", summary: "The URL given is the TOC itself: skip the book page")]),
        help("chapter", summary: "Read one chapter's clean text",
             usage: "bookrule chapter --source FILE CHAPTER_URL [--next NEXT_CHAPTER_URL] [--book NAME] [--no-replace]",
             about: """
             Reads one chapter's clean text, following nextContentUrl until the next chapter. The library's
             replace rules (bookrule rules) change the title and text shown; --book names the book for their scope.
             """,
             options: [
                 .value("--next", "URL", summary: "The following chapter's URL, where content paging stops"),
                 .value("--book", "NAME", summary: "The book's name, for replace rules scoped to it"),
             ] + LibraryOptions.replace + [LibraryOptions.library]),
        help("explore", summary: "List a source's explore categories (exploreUrl), or the books of one",
             usage: "bookrule explore --source FILE [CATEGORY|URL] [--page N]",
             about: """
             Without CATEGORY, lists the categories of the source's exploreUrl (headers in brackets).
             With one (its title, or a URL), lists that page's books with ruleExplore (ruleSearch when
             ruleExplore has no bookList); {{page}} in its URL is --page.
             """,
             options: [.value("--page", "N", summary: "Category page to fetch (default 1)")]),
    ]

    /// The help of step `name`: the options every step takes around the step's own (`options`), and `note`
    /// after them.
    private static func help(_ name: String, summary: String, usage: String, about: String, options: [CommandOption],
                             note: String? = nil) -> CommandHelp {
        CommandHelp(
            name: name, summary: summary, usage: [usage + " [options]"], about: about,
            groups: [
                OptionGroup([
                    .value("--source", "FILE", summary: "Book source JSON file (one source or an array)", completes: .source),
                    .value("--source-name", "NAME", summary: "Which source of an array file (bookSourceName or bookSourceUrl)"),
                ] + options + OfflinePages.options + [
                    .value("--record", "HAR", summary: "Fetch live and add every exchange to a HAR file (created if missing)",
                           completes: .file),
                    .flag("--json", summary: "Print the result as JSON"),
                ], note: note),
                .fetching("Fetching (live requests go through the polite fetcher: one request at a time per host)"),
            ],
            notes: """
            Exit status: 0 done, 1 the step failed (the site, the network, rules that found nothing), 2 the command
            line or the source cannot run (a rule the step needs that cannot run is refused before any fetch).
            """)
    }

    /// The step: `search`, `info`, `toc`, `chapter` or `explore`.
    let name: String
    /// `--source FILE`.
    let sourcePath: String
    /// `--source-name`.
    let sourceName: String?
    /// The operand: KEYWORD, the URL, or explore's CATEGORY (empty without one).
    let target: String
    /// `--page N` (search and explore).
    let page: Int
    /// `toc --toc-url`: the URL is the TOC itself.
    let tocURL: Bool
    /// `chapter --next URL`.
    let next: String?
    /// `chapter --book NAME`, for replace rules scoped to a book.
    let book: String?
    /// `chapter`'s replace rules: `--library`, `--no-replace`, `--explain`.
    let library: LibraryOptions
    /// `--saved`, `--saved-dir` and `--replay`, read once the URL they stand for is known.
    let offline: OfflinePages.Request
    /// `--record HAR`.
    let record: String?
    /// `--json`.
    let json: Bool
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        self.name = name
        guard let path = arguments.value("--source") else { throw UsageError("--source FILE is required") }
        sourcePath = path
        if name == "explore" {
            guard arguments.positionals.count <= 1 else {
                throw UsageError("give at most one CATEGORY (its title, quoted if it has spaces, or a URL)")
            }
        } else if arguments.positionals.count != 1 {
            throw UsageError(name == "search" ? "give one KEYWORD (quote it if it has spaces)" : "give one URL")
        }
        target = arguments.positionals.first ?? ""
        page = try arguments.positiveInt("--page", default: 1)
        sourceName = arguments.value("--source-name")
        tocURL = arguments.has("--toc-url")
        next = arguments.value("--next")
        book = arguments.value("--book")
        library = try LibraryOptions(arguments)
        fetching = try FetchOptions(arguments)
        offline = OfflinePages.Request(arguments)
        record = arguments.value("--record")
        if record != nil, offline.isOffline {
            throw UsageError("--record fetches live; it excludes --replay, --saved and --saved-dir")
        }
        json = arguments.has("--json")
    }

    /// The source steps this command runs, which its source must be able to run.
    private var steps: [SourceStep] {
        switch name {
        case "search": [.search]
        case "explore": [.explore]
        case "info": [.bookInfo]
        case "toc": tocURL ? [.toc] : [.bookInfo, .toc]
        default: [.content]
        }
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let engine: SourceEngine
        var recorder: (transport: RecordingTransport, path: String)?
        // Anything that stops the engine being made stops the command before it fetches: exit status 2.
        do {
            let source = try Self.pickSource(path: sourcePath, name: sourceName, steps: steps, terminal: terminal)
            // A saved page stands in for the URL as the engine will ask for it: resolved against bookSourceUrl.
            let commandURL = name == "search" || name == "explore" ? nil
                : URLReference.resolve(target, against: source.url) ?? target
            let pages = try OfflinePages(offline, commandURL: commandURL)
            var stack = try fetching.stack(terminal: terminal, offline: pages)
            if let record {
                let existing = FileManager.default.fileExists(atPath: record) ? try HARRecording.load(contentsOf: record) : HARRecording()
                stack = stack.recording(appendingTo: existing)
                recorder = stack.recorder.map { ($0, record) }
            }
            let connection: SourceTransport
            if pages.isOffline {
                connection = SourceTransport(plain: stack.transport)
            } else {
                connection = stack.transport(for: source)
                for warning in connection.warnings { terminal.error("warning: \(warning)") }
            }
            let cache = pages.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())
            engine = SourceEngine(source: source, connection: connection, options: EngineOptions(scriptCacheDirectory: cache))
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: name))
            return 2
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return 2
        }

        defer {
            if let recorder {
                do {
                    try recorder.transport.recording.write(to: recorder.path)
                    terminal.error("recorded \(recorder.transport.recording.entries.count) exchange(s) in \(recorder.path)")
                } catch {
                    terminal.error("error: could not save the recording: \(error)")
                }
            }
        }
        do {
            return try await runStep(with: engine, terminal: terminal)
        } catch let error as EngineError {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        } catch let error as ExploreError {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        } catch {
            // A failed step, or the library's replace rules that could not be read: the step failed.
            terminal.error("error: \(ErrorHint.message(error))")
            return 1
        }
    }

    /// Runs the step with `engine` and prints what it read; the exit status, or the error that stopped it.
    private func runStep(with engine: SourceEngine, terminal: Terminal) async throws -> Int32 {
        switch name {
        case "search":
            let result = try await engine.search(key: target, page: page)
            Self.report(result.warnings, terminal)
            if json { try Self.printJSON(result, terminal) } else { Self.printSearch(result, terminal) }
        case "explore":
            try await Self.explore(target, page: page, engine: engine, json: json, terminal)
        case "info":
            let info = try await engine.bookInfo(url: target)
            Self.report(info.warnings, terminal)
            if json { try Self.printJSON(info, terminal) } else { Self.printInfo(info, terminal) }
        case "toc":
            let toc: TableOfContents
            var shown: [String] = []
            if tocURL {
                toc = try await engine.toc(url: target)
            } else {
                let info = try await engine.bookInfo(url: target)
                Self.report(info.warnings, terminal)
                shown = info.warnings
                toc = try await engine.toc(of: info)
            }
            // A book page that is also the TOC warns about the same page in both steps: once is enough.
            Self.report(toc.warnings.filter { !shown.contains($0) }, terminal)
            if json { try Self.printJSON(toc, terminal) } else { Self.printTOC(toc, terminal) }
            if toc.chapters.isEmpty {
                terminal.error("error: ruleToc.chapterList selected nothing on \(toc.pages.first ?? target)")
                return 1
            }
            if toc.nonHTTPChapterURLs > 0 {
                terminal.error("\(toc.nonHTTPChapterURLs) of \(toc.chapters.count) chapter URL(s) are not http(s)")
            }
            // A list cut short by a page that failed is a partial result: shown, and the exit says so.
            if toc.incomplete != nil { return 1 }
        default:
            let chapter = Chapter(index: 0, title: "", url: target)
            let next = self.next.map { Chapter(index: 1, title: "", url: $0) }
            var content = try await engine.content(of: chapter, next: next)
            if let run = try LibraryAccess.replaceRun(library, bookName: book ?? "", sourceURL: engine.source.url) {
                content.title = content.title.map { run.apply($0, to: .title) }
                content.text = run.apply(content.text, to: .content)
                content.warnings += run.warnings
                LibraryAccess.explain(run, library: library, terminal: terminal)
            }
            Self.report(content.warnings, terminal)
            if let fonts = content.fonts, !json { terminal.error("note: \(fonts.summary)") }
            if json { try Self.printJSON(content, terminal) } else { Self.printContent(content, terminal) }
            if content.text.isEmpty {
                terminal.error("error: \(content.emptyReason ?? "the content rules found no text")")
                return 1
            }
        }
        return 0
    }

    /// Loads the file and picks the one source to run, warning (in `lint`'s words) about its problems that do
    /// not stop `steps` and refusing, before anything runs, when one of them stops a step (exit status 2, as
    /// the engine's own refusal of the step: a command running several steps must not start the first).
    static func pickSource(path: String, name: String?, steps: [SourceStep], terminal: Terminal) throws -> BookSource {
        let source = try loadSource(path: path, name: name)
        for problem in source.problems(notStopping: steps) + source.warnings { terminal.error("warning: \(problem)") }
        try source.requireUsable(for: steps)
        return source
    }

    private static func loadSource(path: String, name: String?) throws -> BookSource {
        let sources = try BookSource.load(contentsOf: path)
        if let name {
            let matches = sources.filter { $0.name == name || $0.url == name }
            guard let source = matches.first else {
                throw UsageError("no source named \"\(name)\" in \(path); it has: " + sources.map(\.name).joined(separator: ", "))
            }
            return source
        }
        guard sources.count == 1, let source = sources.first else {
            let names = sources.prefix(10).map { "\"\($0.name)\"" }.joined(separator: ", ")
            throw UsageError("\(path) holds \(sources.count) sources; pick one with --source-name (e.g. \(names))")
        }
        return source
    }

    /// `explore` alone lists the categories; `explore CATEGORY` lists the books of that category's page.
    private static func explore(_ target: String, page: Int, engine: SourceEngine, json: Bool,
                                _ terminal: Terminal) async throws {
        if target.isEmpty {
            let categories = try await engine.exploreCategories()
            if json { return try printJSON(categories, terminal) }
            for category in categories {
                terminal.print(category.url.map { "\(category.title)  \($0)" } ?? "[\(category.title)]")
            }
            terminal.print("\(categories.filter { !$0.isHeader }.count) categor(ies)")
            return
        }
        // A URL needs no exploreUrl; a title is looked up among the categories.
        let categories = engine.source.exploreURL == nil ? [] : try await engine.exploreCategories()
        let category = try ExploreCategory.pick(target, in: categories)
        let result = try await engine.explore(url: category.url ?? target, page: page)
        report(result.warnings, terminal)
        if json { try printJSON(result, terminal) } else { printSearch(result, terminal) }
    }

    private static func report(_ warnings: [String], _ terminal: Terminal) {
        for warning in warnings { terminal.error("warning: \(warning)") }
    }

    private static func printJSON<T: Encodable>(_ value: T, _ terminal: Terminal) throws {
        terminal.print(try JSONWriter.string(value, style: .pretty))
    }

    private static func printSearch(_ page: SearchPage, _ terminal: Terminal) {
        terminal.print("\(page.results.count) result(s) from \(page.url)")
        for (index, result) in page.results.enumerated() {
            let author = result.author.isEmpty ? "" : " — \(result.author)"
            terminal.print("\(index + 1). \(result.name)\(author)")
            terminal.print("   \(result.bookURL)")
            if !result.lastChapter.isEmpty { terminal.print("   latest: \(result.lastChapter)") }
        }
    }

    private static func printInfo(_ info: BookInfo, _ terminal: Terminal) {
        let fields: [(String, String)] = [
            ("Name", info.name), ("Author", info.author), ("Kind", info.kind), ("Latest", info.lastChapter),
            ("Updated", info.updateTime), ("Words", info.wordCount), ("Cover", info.coverURL),
            ("TOC", info.tocURL), ("URL", info.url),
        ]
        for (label, value) in fields where !value.isEmpty {
            terminal.print("\(label.padding(toLength: 8, withPad: " ", startingAt: 0))\(value)")
        }
        if !info.intro.isEmpty {
            terminal.print("Intro")
            for line in info.intro.split(separator: "\n") { terminal.print("  \(line)") }
        }
    }

    private static func printTOC(_ toc: TableOfContents, _ terminal: Terminal) {
        let width = String(toc.chapters.count).count
        for chapter in toc.chapters {
            let number = String(chapter.index + 1)
            let padded = String(repeating: " ", count: max(0, width - number.count)) + number
            let marker = chapter.isVolume ? " [volume]" : (chapter.isVIP || chapter.isPay ? " [vip]" : "")
            terminal.print("\(padded)  \(chapter.title)\(marker)  \(chapter.url)")
        }
        terminal.print("\(toc.chapters.count) chapter(s) from \(toc.pages.count) page(s)")
    }

    private static func printContent(_ content: ChapterContent, _ terminal: Terminal) {
        if let title = content.title { terminal.print(title + "\n") }
        terminal.print(content.text)
        let pictures = content.imageURLs.count
        terminal.error("(\(content.text.count) characters" + (pictures > 0 ? ", \(pictures) picture(s)" : "")
                       + " from \(content.pages.count) page(s))")
    }
}
