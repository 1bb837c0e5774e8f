/// A `bookrule` command: its help, declared once (`CommandHelp`), the command line read into typed options
/// once (`init`), and the work (`run`). `CommandTable` finds the command a name runs; `run(_:words:terminal:)`
/// is the opening every command shares: parse, `--help`, usage errors and exit status.
protocol Command {
    /// The help of each name this type runs: one for most commands, more where names share their options and
    /// work (`search`, `info`, `toc`, `chapter` and `explore` are steps of one source command).
    static var helps: [CommandHelp] { get }

    /// Whether `words` (after the name) are for this type rather than another that runs the same name
    /// (`search … --sources` searches a collection); true unless a type says otherwise.
    static func claims(_ words: [String]) -> Bool

    /// Reads the command line of `name` into the command's typed options, once; throws `UsageError` for a
    /// command line that cannot run as typed (exit status 2, with a pointer to the help).
    init(name: String, arguments: CommandLineArguments) throws

    /// Does the work and returns the exit status; an error it throws ends the command with `ExitStatus(for:)`
    /// after the error is said (a `UsageError` as a usage error).
    func run(terminal: Terminal) async throws -> Int32
}

extension Command {
    static func claims(_ words: [String]) -> Bool { true }

    /// The help of `name` (the first when this type does not run `name`, which `CommandTable` never asks).
    static func help(for name: String) -> CommandHelp? {
        helps.first { $0.name == name }
    }

    /// Runs `name` with `words`: parses them against its declared options, prints the help for `--help`,
    /// reads the options into the command and runs it, saying errors the way every command says them.
    static func run(_ name: String, words: [String], terminal: Terminal) async -> Int32 {
        guard let help = help(for: name) else {
            terminal.error("error: unknown command \"\(name)\"\nsee 'bookrule --help'")
            return ExitStatus.cannotRun.code
        }
        do {
            let arguments = try CommandLineArguments(words, options: help.options)
            if arguments.has("--help") {
                terminal.print(help.text)
                return ExitStatus.done.code
            }
            let command = try Self(name: name, arguments: arguments)
            return try await command.run(terminal: terminal)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: name))
            return ExitStatus.cannotRun.code
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        }
    }
}
