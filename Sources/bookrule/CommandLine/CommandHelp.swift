/// What one command name is, declared once: the line `bookrule --help` lists it with, its usage, what it
/// does, its options and what its operands are. Its `--help`, the parser's table of options and the entry
/// `bookrule help --json` gives the man page and the shell completions are all made from it.
struct CommandHelp: Sendable {
    /// The name as typed (`fetch`).
    let name: String
    /// One line for `bookrule --help`'s list of commands.
    let summary: String
    /// The usage lines, each starting `bookrule NAME`; a line starting with spaces continues the one before.
    let usage: [String]
    /// What the command does: paragraphs, as written.
    let about: String
    /// The options, by group; the first group also lists `-h, --help`.
    let groups: [OptionGroup]
    /// Text after the options (an exit status that says more than the table), as written; may be empty.
    let notes: String
    /// What a shell completes the command's operands to.
    let operands: CommandOption.Completion
    /// The first operands that name a subcommand (`rules import`), for completions.
    let subcommands: [String]

    init(name: String, summary: String, usage: [String], about: String, groups: [OptionGroup], notes: String = "",
         operands: CommandOption.Completion = .nothing, subcommands: [String] = []) {
        self.name = name
        self.summary = summary
        self.usage = usage
        self.about = about
        self.groups = groups
        self.notes = notes
        self.operands = operands
        self.subcommands = subcommands
    }

    /// The groups as the help shows them: `-h, --help` ends the first (an "Options" group of its own when the
    /// command declares none).
    var shownGroups: [OptionGroup] {
        guard let first = groups.first else { return [OptionGroup([.help])] }
        return [OptionGroup(first.title, first.options + [.help], note: first.note)] + groups.dropFirst()
    }

    /// Every option the command takes, `-h, --help` included, in the order the help shows them.
    var options: [CommandOption] {
        shownGroups.flatMap(\.options)
    }

    /// The text `bookrule NAME --help` prints.
    var text: String {
        var lines = usage.enumerated().map { index, line in (index == 0 ? "Usage: " : "       ") + line }
        if !about.isEmpty { lines += ["", about] }
        for group in shownGroups {
            lines += ["", group.title + ":"]
            for option in group.options { lines += option.helpLines() }
            if let note = group.note { lines.append(note) }
        }
        if !notes.isEmpty { lines += ["", notes] }
        return lines.joined(separator: "\n")
    }
}
