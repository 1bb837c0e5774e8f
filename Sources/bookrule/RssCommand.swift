import BookRule
import Foundation

/// `rss`: run one RSS source (Legado's 订阅源) against its site: its sorts, a sort's articles, an article's
/// text. The reading is the library's (`RssReader`); this file parses the command line and prints.
struct RssCommand: Command {
    static let helps = [CommandHelp(
        name: "rss", summary: "Read an RSS source (Legado's 订阅源): its sorts, a sort's articles, an article's text",
        usage: ["bookrule rss --source FILE [--sort NAME] [--page N | --next URL] [--json] [options]",
                "bookrule rss --source FILE --sorts",
                "bookrule rss --source FILE --read URL [--sort NAME]"],
        about: """
        Runs an RSS source (Legado's 订阅源: sourceUrl, sortUrl, ruleArticles…). With no ruleArticles the page
        is read as an RSS or Atom feed; otherwise by the rules, as Legado does.

        With --source alone, lists the source's sorts (sortUrl's name::url entries; without any, the source URL).
        With --sort, --page, --next or --json, lists the articles of a sort: the first sort unless --sort NAME
        (its name or URL), page --page N of it ({{page}} in its URL), or the page --next URL that a previous page
        named.
        """,
        groups: [
            OptionGroup([
                .value("--source", "FILE", summary: "RSS source JSON file (one source or an array; book sources in it are "
                       + "set aside)", completes: .source),
                .value("--source-name", "NAME", summary: "Which source of an array file (sourceName or sourceUrl)"),
                .flag("--sorts", summary: "List the sorts (also with --json: [{\"name\", \"url\"}])"),
                .value("--sort", "NAME", summary: "The sort to list (default: the first)"),
                .value("--page", "N", summary: "Page of the sort to fetch (default 1)"),
                .value("--next", "URL", summary: "Fetch this page of the sort instead (a nextPage a previous run printed)"),
                .value("--read", "URL", summary: "Print the text of the article at URL, cleaned as a chapter is: its page "
                       + "read with ruleContent, else the description the sort's list gives it"),
                .flag("--json", summary: "Print the result as JSON: {\"articles\": [{\"title\", \"link\", \"pubDate\", "
                      + "\"description\", \"image\", \"sort\"}], \"nextPage\": URL or null}; with --read the chapter "
                      + "JSON of bookrule chapter; with --sorts [{\"name\", \"url\"}]"),
            ] + OfflinePages.options + [
                .value("--record", "HAR", summary: "Fetch live and add every exchange to a HAR file (created if missing)",
                       completes: .file),
            ]),
            .fetching("Fetching (live requests go through the polite fetcher: one request at a time per host)"),
        ],
        notes: """
        Exit status: 0 done, 1 the page or article could not be read (the site, the network, rules that found
        nothing), 2 the command line or the source cannot run.
        """)]

    /// `--source FILE`.
    let sourcePath: String
    /// `--source-name`.
    let sourceName: String?
    /// `--sorts`: list the sorts.
    let listsSorts: Bool
    /// `--sort NAME`.
    let sort: String?
    /// `--page N`.
    let page: Int
    /// `--next URL`.
    let next: String?
    /// `--read URL`.
    let read: String?
    /// `--json`.
    let json: Bool
    /// Whether the command line asks for a sort's articles (or an article) rather than the sorts: any of
    /// `--sort`, `--page`, `--next`, `--read` or `--json`.
    let asksForArticles: Bool
    /// `--saved`, `--saved-dir` and `--replay`, read once the URL they stand for is known.
    let offline: OfflinePages.Request
    /// `--record HAR`.
    let record: String?
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard let path = arguments.value("--source") else { throw UsageError("--source FILE is required") }
        sourcePath = path
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected \"\(arguments.positionals[0])\": name a sort with --sort, an article with --read")
        }
        listsSorts = arguments.has("--sorts")
        sort = arguments.value("--sort")
        next = arguments.value("--next")
        read = arguments.value("--read")
        if read != nil, listsSorts || next != nil {
            throw UsageError("--read reads one article; it excludes --sorts and --next")
        }
        page = try arguments.positiveInt("--page", default: 1)
        sourceName = arguments.value("--source-name")
        json = arguments.has("--json")
        asksForArticles = ["--sort", "--page", "--next", "--read"].contains { arguments.value($0) != nil } || json
        fetching = try FetchOptions(arguments)
        offline = OfflinePages.Request(arguments)
        record = arguments.value("--record")
        if record != nil, offline.isOffline {
            throw UsageError("--record fetches live; it excludes --replay, --saved and --saved-dir")
        }
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let reader: RssReader
        var recorder: (transport: RecordingTransport, path: String)?
        // Anything that stops the reader being made stops the command before it fetches: exit status 2.
        do {
            let source = try Self.pickSource(path: sourcePath, name: sourceName, terminal: terminal)
            let pages = try OfflinePages(offline, commandURL: read ?? next)
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
                connection = stack.transport(for: source.engineSource)
                for warning in connection.warnings { terminal.error("warning: \(warning)") }
            }
            let cache = pages.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())
            reader = RssReader(source: source, connection: connection, options: EngineOptions(scriptCacheDirectory: cache))
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "rss"))
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
            return try await list(with: reader, terminal: terminal)
        } catch let error as RssError {
            terminal.error("error: \(error)")
            if case .unknownSort = error { return 2 }
            return 1
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        }
    }

    /// Lists the sorts, a sort's articles or an article's text, as the command line asks; the exit status.
    private func list(with reader: RssReader, terminal: Terminal) async throws -> Int32 {
        let sorts = try await reader.sorts()
        if listsSorts || !asksForArticles {
            if json { return try Self.printJSON(sorts, terminal) }
            for sort in sorts { terminal.print(sort.name.isEmpty ? "(one sort)  \(sort.url)" : "\(sort.name)  \(sort.url)") }
            terminal.print("\(sorts.count) sort(s); list a sort's articles with --sort NAME (--page 1: the first sort's)")
            return 0
        }
        let sort = try await reader.sort(named: self.sort)
        if let read {
            return try await Self.read(read, sort: sort, reader: reader, json: json, terminal)
        }
        let articles = if let next {
            try await reader.articles(at: next, sort: sort.name)
        } else {
            try await reader.articles(in: sort, page: page)
        }
        for warning in articles.warnings { terminal.error("warning: \(warning)") }
        if json { return try Self.printJSON(articles, terminal) }
        for (index, article) in articles.articles.enumerated() {
            terminal.print("\(index + 1). \(article.title)" + (article.pubDate.map { $0.isEmpty ? "" : "  (\($0))" } ?? ""))
            if !article.link.isEmpty { terminal.print("   \(article.link)") }
            if let image = article.image, !image.isEmpty { terminal.print("   picture: \(image)") }
        }
        terminal.print("\(articles.articles.count) article(s) from \(articles.url)" + (articles.readAsFeed ? " (read as a feed)" : ""))
        if let next = articles.nextPage {
            terminal.print(next == sort.url ? "next: --page \(page + 1)" : "next: --next \(next)")
        }
        return 0
    }

    /// Prints an article's text. Without `ruleContent` the text is the article's description, so the
    /// sort's first page is read to find the article by its link.
    private static func read(_ link: String, sort: RssSort, reader: RssReader, json: Bool, _ terminal: Terminal) async throws -> Int32 {
        var article = RssArticle(title: "", link: link, sort: sort.name, origin: reader.source.url)
        if reader.source.rules.texts[.ruleContent] == nil {
            let page = try await reader.articles(in: sort)
            guard let listed = page.articles.first(where: { $0.link == link }) else {
                terminal.error("error: the source has no ruleContent, so an article is read from its description, and \(link) "
                               + "is not on the first page of the sort" + (sort.name.isEmpty ? "" : " \"\(sort.name)\"")
                               + "; name its sort with --sort")
                return 1
            }
            article = listed
        }
        let content = try await reader.text(of: article)
        for warning in content.warnings { terminal.error("warning: \(warning)") }
        if json {
            _ = try printJSON(content, terminal)
        } else {
            if let title = content.title { terminal.print(title + "\n") }
            terminal.print(content.text)
            terminal.error("(\(content.text.count) characters from \(max(1, content.pages.count)) page(s))")
        }
        if content.text.isEmpty {
            terminal.error("error: \(content.emptyReason ?? "the article has no text")")
            return 1
        }
        return 0
    }

    /// The one RSS source of the file to run; a file that also holds book sources says how many were set aside.
    private static func pickSource(path: String, name: String?, terminal: Terminal) throws -> RssSource {
        let file = try SourceFile.load(contentsOf: path)
        let sources = file.rssSources
        guard !sources.isEmpty else { throw SourceFileError.noRssSources(path: path, bookSources: file.bookSources.count) }
        if !file.bookSources.isEmpty {
            terminal.error("note: \(path) also holds \(file.bookSources.count) book source(s), set aside")
        }
        let source: RssSource
        if let name {
            guard let match = sources.first(where: { $0.name == name || $0.url == name }) else {
                throw UsageError("no RSS source named \"\(name)\" in \(path); it has: " + sources.map(\.name).joined(separator: ", "))
            }
            source = match
        } else {
            guard sources.count == 1, let only = sources.first else {
                let names = sources.prefix(10).map { "\"\($0.name)\"" }.joined(separator: ", ")
                throw UsageError("\(path) holds \(sources.count) RSS sources; pick one with --source-name (e.g. \(names))")
            }
            source = only
        }
        for problem in source.problems { terminal.error("warning: \(problem)") }
        return source
    }

    private static func printJSON<T: Encodable>(_ value: T, _ terminal: Terminal) throws -> Int32 {
        terminal.print(try JSONWriter.string(value, style: .pretty))
        return 0
    }
}
