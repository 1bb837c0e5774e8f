import BookRule

/// The command line: picks a command, runs it, and maps the outcome to an exit status (`ExitStatus`: 0 done,
/// 1 some work failed, 2 the command line or the source cannot run).
enum BookruleCLI {
    static let version = "0.1.0"

    static let usage = """
    bookrule: scrape novel sites with Legado book sources (XPath and regex rules).

    Usage: bookrule <command> [options]

    Commands:
      search    Search a site (--source) or many at once (--sources) and list the books found
      info      Read a book page
      toc       Read a book's whole table of contents
      chapter   Read one chapter's clean text
      explore   List a source's explore categories (exploreUrl), or the books of one
      rss       Read an RSS source (Legado's 订阅源): its sorts, a sort's articles, an article's text
      fetch     Download a whole book into the offline library (resumable)
      download  Download files (images, audio, anything large) resumably, several at once
      sources   List the sources a saved book is known on (--check reads them again); --add and --find
                record others, --move-host follows a site that moved
      switch    Move a saved book to another source, keeping saved chapters (dry run without --yes)
      update    Fetch only the new chapters of saved books (--all for every book), with a summary table
      export    Write a saved book as EPUB or TXT
      rules     Import, list and test replace rules (Legado's replaceRule JSON), which export, fetch and
                chapter apply
      library   List saved books, or remove one
      login     Log in to a source (its loginUrl and loginUi), kept encrypted for every command; --check
      logout    Remove a source's kept login
      webdav    Restore, back up and sync with the Legado app's WebDAV folder (backups, reading progress)
      test      Check sources against their recorded fixtures, rule by rule
      lint      Check source files without fetching anything
      try       Evaluate one rule on a page (saved or fetched) and show what it matched
      studio    Serve the authoring studio (a local web page showing what each rule matches) on 127.0.0.1
      serve     Serve the library with Legado's web API, for Legado's web client (bookshelf, reader, sources)
      fixture   Build a HAR fixture from saved pages (fixture add)
      report    Join the JSON reports of several test runs (report merge)

    Options for every command:
      -h, --help     Show help for the command
      --version      Print bookrule's version
      --no-font-decoding
                     Leave text that a page's web font draws as other characters as the page holds it
                     (by default such fonts are decoded against installed CJK fonts: docs/fonts.md)

    Exit status (every command): 0 done; 1 some of the work failed (a page, a chapter, a check, one source
    or book among several); 2 the command line or the source cannot run (a bad flag, a file that cannot be
    read, a rule a step of the command needs that cannot run: refused before anything is fetched).

    Run `bookrule <command> --help` for a command's options.
    """

    /// Runs the command line `arguments` (without the program name) and returns the exit status.
    static func run(_ arguments: [String], terminal: Terminal) async -> Int32 {
        // A flag of every command that reads text: it changes how every engine the command makes reads.
        if let flag = arguments.firstIndex(of: "--no-font-decoding") {
            var rest = arguments
            rest.remove(at: flag)
            return await WebFontReading.$current.withValue(nil) { await run(rest, terminal: terminal) }
        }
        guard let command = arguments.first else {
            terminal.error(usage)
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "--help", "-h", "help":
            terminal.print(usage)
            return 0
        case "--version":
            terminal.print("bookrule \(version) (libxml2 \(HTMLDocument.libxml2Version))")
            return 0
        case "search" where MultiSearchCommand.applies(to: rest):
            return await MultiSearchCommand.run(rest, terminal: terminal)
        case "search", "info", "toc", "chapter", "explore":
            return await SourceCommand.run(command, rest, terminal: terminal)
        case "rss":
            return await RssCommand.run(rest, terminal: terminal)
        case "lint":
            return LintCommand.run(rest, terminal: terminal)
        case "try":
            return await TryCommand.run(rest, terminal: terminal)
        case "studio":
            return await StudioCommand.run(rest, terminal: terminal)
        case "serve":
            return await ServeCommand.run(rest, terminal: terminal)
        case "fixture":
            return FixtureCommand.run(rest, terminal: terminal)
        case "report":
            return ReportCommand.run(rest, terminal: terminal)
        case "test":
            return await TestCommand.run(rest, terminal: terminal)
        case "fetch":
            return await FetchCommand.run(rest, terminal: terminal)
        case "download":
            return await DownloadCommand.run(rest, terminal: terminal)
        case "sources", "switch":
            return await BookSourcesCommand.run(command, rest, terminal: terminal)
        case "update":
            return await UpdateCommand.run(rest, terminal: terminal)
        case "export":
            return await ExportCommand.run(rest, terminal: terminal)
        case "rules":
            return RulesCommand.run(rest, terminal: terminal)
        case "library":
            return LibraryCommand.run(rest, terminal: terminal)
        case "login", "logout":
            return await LoginCommand.run(command, rest, terminal: terminal)
        case "webdav":
            return await WebDAVCommand.run(rest, terminal: terminal)
        default:
            terminal.error("error: unknown command \"\(command)\"\nsee 'bookrule --help'")
            return 2
        }
    }
}
