import BookRule

/// The command line: picks a command, runs it, and maps the outcome to an exit status (`ExitStatus`: 0 done,
/// 1 some work failed, 2 the command line or the source cannot run).
enum BookruleCLI {
    static let version = "0.1.0"

    /// The top-level help (`CommandTable.usage`).
    static var usage: String { CommandTable.usage }

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
        case "--help", "-h":
            terminal.print(usage)
            return 0
        case "help":
            return help(rest, terminal: terminal)
        case "--version":
            terminal.print("bookrule \(version) (libxml2 \(HTMLDocument.libxml2Version))")
            return 0
        default:
            guard let type = CommandTable.command(named: command, words: rest) else {
                terminal.error("error: unknown command \"\(command)\"\nsee 'bookrule --help'")
                return 2
            }
            return await type.run(command, words: rest, terminal: terminal)
        }
    }

    /// `bookrule help` (the top-level help), `help COMMAND` (a command's) and `help --json` (the whole table,
    /// for the man page and completions).
    private static func help(_ words: [String], terminal: Terminal) -> Int32 {
        switch words {
        case [], ["--help"], ["-h"]:
            terminal.print(usage)
        case ["--json"]:
            do {
                terminal.print(try CommandTable.json(version: version))
            } catch {
                terminal.error("error: \(error)")
                return 1
            }
        case let words where words.count == 1:
            // Every page of the name: `search` is one source's search and a collection's.
            let pages = CommandTable.pages(of: words[0])
            guard !pages.isEmpty else {
                terminal.error("error: unknown command \"\(words[0])\"\nsee 'bookrule --help'")
                return 2
            }
            terminal.print(pages.map(\.text).joined(separator: "\n\n"))
        default:
            terminal.error("error: bookrule help takes one COMMAND, --json or nothing\nsee 'bookrule --help'")
            return 2
        }
        return 0
    }
}
