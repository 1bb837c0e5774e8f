/// One option of a command, declared once: the parser learns from it whether the option takes a value, the
/// command's `--help` shows its line, and the man page and shell completions (`bookrule help --json`) read
/// both, so none of the four can differ from another.
struct CommandOption: Sendable, Equatable {
    /// What a shell completes the option's value (or a command's operands) to.
    enum Completion: String, Sendable, Encodable {
        /// Nothing: a number, a URL, a name.
        case nothing = "none"
        /// Any file.
        case file
        /// A folder.
        case directory = "dir"
        /// A book source: `*.json` files and folders.
        case source = "json"
        /// One of `CommandOption.choices`.
        case choice
    }

    /// The names that give it, as the help shows them (`["-o"]`, `["-h", "--help"]`).
    let names: [String]
    /// The value's name in the help (`FILE`, `SECONDS`), nil for a flag.
    let argument: String?
    /// What it does, one paragraph; the help wraps it.
    let summary: String
    /// What a shell completes its value to.
    let completion: Completion
    /// The words the value may be, for `Completion.choice`.
    let choices: [String]
    /// Whether it may be given more than once, each value kept (`--saved`, `--field`).
    let repeats: Bool
    /// How many words its value takes: 1, or 2 for an option such as `--move-host OLD NEW`.
    var wordCount = 1

    /// A flag: present or not.
    static func flag(_ names: String..., summary: String) -> CommandOption {
        CommandOption(names: names, argument: nil, summary: summary, completion: .nothing, choices: [], repeats: false)
    }

    /// An option taking one value named `argument` (the last one counts when it is given twice, unless `repeats`).
    static func value(_ name: String, _ argument: String, summary: String, completes completion: Completion = .nothing,
                      repeats: Bool = false) -> CommandOption {
        CommandOption(names: [name], argument: argument, summary: summary, completion: completion, choices: [],
                      repeats: repeats)
    }

    /// An option whose value is one of `choices`, shown as `a|b|c`.
    static func choice(_ name: String, _ choices: [String], summary: String) -> CommandOption {
        CommandOption(names: [name], argument: choices.joined(separator: "|"), summary: summary, completion: .choice,
                      choices: choices, repeats: false)
    }

    /// An option taking two words (`--move-host OLD NEW`), kept as two values in order.
    static func pair(_ name: String, _ first: String, _ second: String, summary: String) -> CommandOption {
        var option = CommandOption(names: [name], argument: first + " " + second, summary: summary, completion: .nothing,
                                   choices: [], repeats: false)
        option.wordCount = 2
        return option
    }

    /// `-h, --help`, which every command takes.
    static let help = CommandOption.flag("-h", "--help", summary: "Show this help")

    /// The name its values are kept under once parsed: its long name (`--help` for `-h`), else its only one.
    var key: String {
        names.first { $0.hasPrefix("--") } ?? names.first ?? ""
    }

    /// How the help shows its names and value: `-h, --help`, `--source FILE`.
    var synopsis: String {
        names.joined(separator: ", ") + (argument.map { " " + $0 } ?? "")
    }

    /// The option's lines in a help: the synopsis in a column of 20 after two spaces, the summary beside it
    /// wrapped at `width` columns (after two spaces when the synopsis is longer than the column).
    func helpLines(width: Int = 110) -> [String] {
        let column = 22
        var first = "  " + synopsis
        first += first.count + 2 <= column ? String(repeating: " ", count: column - first.count) : "  "
        return HelpText.wrap(summary, width: width, firstPrefix: first, prefix: String(repeating: " ", count: column))
    }
}
