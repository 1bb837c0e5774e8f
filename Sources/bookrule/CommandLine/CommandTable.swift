import BookRule

/// Every command, in the order `bookrule --help` lists them: the one place a command is added. It finds the
/// command a name runs, and makes the top-level help and the table the man page and completions are made
/// from (`bookrule help --json`, docs/packaging.md).
enum CommandTable {
    /// The command types; where two run one name, the one whose `claims` is checked first comes first.
    static var commands: [any Command.Type] { [
        MultiSearchCommand.self, SourceCommand.self, RssCommand.self, FetchCommand.self, DownloadCommand.self,
        BookSourcesCommand.self, UpdateCommand.self, ExportCommand.self, RulesCommand.self, LibraryCommand.self,
        LoginCommand.self, WebDAVCommand.self, TestCommand.self, LintCommand.self, TryCommand.self,
        StudioCommand.self, ServeCommand.self, FixtureCommand.self, ReportCommand.self,
    ] }

    /// The options every command takes, which the top-level help lists.
    static let globalOptions: [CommandOption] = [
        .help,
        .flag("--version", summary: "Print bookrule's version"),
        .flag("--no-font-decoding", summary: "Leave text that a page's web font draws as other characters as the page holds it "
              + "(by default such fonts are decoded against installed CJK fonts: docs/fonts.md)"),
    ]

    /// Each command name once, with its help, in the order listed (the first help of a name that two types run).
    static var helps: [CommandHelp] {
        var seen: Set<String> = []
        return commands.flatMap { $0.helps }.filter { seen.insert($0.name).inserted }
    }

    /// Every help of `name`, in the table's order (`search` has two: one source's, a collection's); none for a
    /// name no command has.
    static func pages(of name: String) -> [CommandHelp] {
        commands.flatMap { $0.helps }.filter { $0.name == name }
    }

    /// The type that runs `name` with `words`, nil for a name no command has.
    static func command(named name: String, words: [String]) -> (any Command.Type)? {
        commands.first { type in type.helps.contains { $0.name == name } && type.claims(words) }
    }

    /// `bookrule --help`.
    static var usage: String {
        var lines = [
            "bookrule: scrape novel sites with Legado book sources (XPath and regex rules).", "",
            "Usage: bookrule <command> [options]", "", "Commands:",
        ]
        for help in helps {
            let name = "  " + help.name
            let first = name + String(repeating: " ", count: max(2, 12 - name.count))
            lines += HelpText.wrap(help.summary, width: 110, firstPrefix: first, prefix: String(repeating: " ", count: 12))
        }
        lines += ["", "Options for every command:"]
        for option in globalOptions { lines += option.helpLines() }
        lines += ["", exitStatus, "", "Run `bookrule <command> --help` for a command's options."]
        return lines.joined(separator: "\n")
    }

    /// The exit status every command ends with (`ExitStatus`), as the top-level help says it.
    static let exitStatus = """
    Exit status (every command): 0 done; 1 some of the work failed (a page, a chapter, a check, one source
    or book among several); 2 the command line or the source cannot run (a bad flag, a file that cannot be
    read, a rule a step of the command needs that cannot run: refused before anything is fetched).
    """

    /// The table as JSON: every command with its help text and its declared options, from which
    /// scripts/make-man.py and scripts/make-completions.py write the man page and the completions.
    static func json(version: String) throws -> String {
        try JSONWriter.string(Listing(version: version, usage: usage, exitStatus: exitStatus,
                                      globalOptions: globalOptions.map(Listing.Option.init),
                                      commands: helps.map(Listing.Command.init)), style: .pretty)
    }

    /// The shape of `bookrule help --json`.
    private struct Listing: Encodable {
        struct Option: Encodable {
            var names: [String]
            var argument: String?
            var summary: String
            var completion: CommandOption.Completion
            var choices: [String]
            var repeats: Bool

            init(_ option: CommandOption) {
                names = option.names
                argument = option.argument
                summary = option.summary
                completion = option.completion
                choices = option.choices
                repeats = option.repeats
            }
        }

        struct Group: Encodable {
            var title: String
            var options: [Option]
            var note: String?
        }

        /// One help text of a name, in parts (a name two types run has two).
        struct Page: Encodable {
            var usage: [String]
            var about: String
            var groups: [Group]
            var notes: String
            var text: String

            init(_ help: CommandHelp) {
                usage = help.usage
                about = help.about
                notes = help.notes
                text = help.text
                groups = help.shownGroups.map { Group(title: $0.title, options: $0.options.map(Option.init), note: $0.note) }
            }
        }

        struct Command: Encodable {
            var name: String
            var summary: String
            var operands: CommandOption.Completion
            var subcommands: [String]
            /// Every option the name takes, whichever of its pages lists it: what a shell completes.
            var options: [Option]
            var pages: [Page]

            init(_ help: CommandHelp) {
                let all = CommandTable.pages(of: help.name)
                name = help.name
                summary = help.summary
                operands = all.map(\.operands).first { $0 != .nothing } ?? .nothing
                subcommands = all.flatMap(\.subcommands)
                var known: Set<String> = []
                options = all.flatMap(\.options).filter { known.insert($0.key).inserted }.map(Option.init)
                pages = all.map(Page.init)
            }
        }

        var version: String
        var usage: String
        var exitStatus: String
        var globalOptions: [Option]
        var commands: [Command]
    }
}
