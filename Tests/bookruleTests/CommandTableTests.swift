import BookRule
import Foundation
import Testing
@testable import bookrule

@Suite("The command table: options declared once, for the parser, --help and help --json")
struct CommandTableTests {
    /// Parses `words` for `name` against its declared options.
    private func arguments(_ name: String, _ words: [String]) throws -> CommandLineArguments {
        let help = try #require(CommandTable.helps.first { $0.name == name })
        return try CommandLineArguments(words, options: help.options)
    }

    @Test("every command's --help exits 0 and shows each option it accepts, no name declared twice")
    func everyHelpListsItsOptions() async throws {
        #expect(CommandTable.helps.count >= 20)
        for type in CommandTable.commands {
            for help in type.helps { await check(help, of: type) }
        }
    }

    /// `help`'s --help run through `type`: exit 0, every option shown once, no line wider than 112 columns.
    private func check(_ help: CommandHelp, of type: any Command.Type) async {
        let terminal = Terminal.capture()
        #expect(await type.run(help.name, words: ["-h"], terminal: terminal) == 0, "\(help.name)")
        #expect(terminal.output.hasPrefix("Usage: bookrule \(help.name)"), "\(help.name): \(terminal.output.prefix(80))")
        let names = help.options.flatMap(\.names)
        #expect(Set(names).count == names.count, "\(help.name) declares an option twice: \(names)")
        for option in help.options {
            #expect(terminal.output.contains("  " + option.synopsis), "\(help.name) --help does not show \(option.synopsis)")
        }
        for line in help.text.split(separator: "\n") where !line.hasPrefix("Usage:") && !line.hasPrefix("       bookrule") {
            #expect(DisplayWidth.columns(line) <= 112, "\(help.name): a help line of \(line.count) columns: \(line)")
        }
    }

    @Test("the top-level help lists each command once, in the table's order")
    func topLevelList() {
        let usage = BookruleCLI.usage
        for help in CommandTable.helps {
            #expect(usage.components(separatedBy: "\n  \(help.name) ").count == 2, "\(help.name)")
        }
        #expect(usage.contains("--no-font-decoding"))
    }

    @Test("help --json lists every command with its options, what each value completes to, and each help page")
    func jsonTable() async throws {
        let terminal = Terminal.capture()
        #expect(await BookruleCLI.run(["help", "--json"], terminal: terminal) == 0)
        let table = try #require(try JSONSerialization.jsonObject(with: Data(terminal.output.utf8)) as? [String: Any])
        let commands = try #require(table["commands"] as? [[String: Any]])
        #expect(commands.compactMap { $0["name"] as? String } == CommandTable.helps.map(\.name))
        let search = try #require(commands.first { $0["name"] as? String == "search" })
        let options = try #require(search["options"] as? [[String: Any]])
        let sources = try #require(options.first { ($0["names"] as? [String]) == ["--sources"] })
        #expect(sources["completion"] as? String == "json")
        #expect(sources["repeats"] as? Bool == true)
        // search runs two commands (one source, a collection): both pages, and both's options to complete.
        #expect((search["pages"] as? [Any])?.count == 2)
        #expect(options.contains { ($0["names"] as? [String]) == ["--source"] })
        let export = try #require(commands.first { $0["name"] as? String == "export" })
        let convert = try #require((export["options"] as? [[String: Any]])?.first { ($0["names"] as? [String]) == ["--convert"] })
        #expect(convert["choices"] as? [String] == ["t2s", "s2t"])
        let rules = try #require(commands.first { $0["name"] as? String == "rules" })
        #expect((rules["subcommands"] as? [String])?.contains("import") == true)
    }

    @Test("help COMMAND prints that command's help (each page of a name two commands run); an unknown one exits 2")
    func helpCommand() async {
        let fetch = Terminal.capture()
        #expect(await BookruleCLI.run(["help", "fetch"], terminal: fetch) == 0)
        #expect(fetch.output.hasPrefix("Usage: bookrule fetch"))
        let search = Terminal.capture()
        #expect(await BookruleCLI.run(["help", "search"], terminal: search) == 0)
        #expect(search.output.contains("Usage: bookrule search KEYWORD --sources") && search.output.contains("Usage: bookrule search --source"))
        let helpHelp = Terminal.capture()
        #expect(await BookruleCLI.run(["help", "--help"], terminal: helpHelp) == 0)
        #expect(helpHelp.output.contains("Commands:"))
        let unknown = Terminal.capture()
        #expect(await BookruleCLI.run(["help", "frobnicate"], terminal: unknown) == 2)
        #expect(unknown.errors.contains("unknown command \"frobnicate\""))
    }

    @Test("declared options: -h is --help, --name=value and repeats kept in order, a flag with a value refused")
    func declaredParsing() throws {
        let parsed = try arguments("fetch", ["-h", "--sources=a", "--sources", "b", "--json"])
        #expect(parsed.has("--help") && parsed.has("--json"))
        #expect(parsed.values("--sources") == ["a", "b"])
        #expect(throws: UsageError.self) { try arguments("fetch", ["--json=yes"]) }
        #expect(throws: UsageError.self) { try arguments("fetch", ["--bogus"]) }
    }

    @Test("fetch reads each option once into its type: --mirrors, --pick and --from/--to with their bounds")
    func fetchOptionsTyped() throws {
        let fetch = try FetchCommand(name: "fetch", arguments: arguments("fetch", [
            "--search", "x", "--sources", "dir", "--mirrors", "3", "--pick", "2", "--from", "4", "--to", "9", "--wait", "1.5",
        ]))
        #expect(fetch.mirrors == 3 && fetch.pick == 2 && fetch.range == 4...9 && fetch.wait == .milliseconds(1500))
        #expect(fetch.collectionPaths == ["dir"] && fetch.sourceFile == nil)
        let plain = try FetchCommand(name: "fetch", arguments: arguments("fetch", ["--source", "s.json", "https://a/b"]))
        #expect(plain.pick == nil && plain.range == nil && plain.mirrors == 1 && plain.verifySample == nil)
        for bad in [["--mirrors", "17"], ["--pick", "0"], ["--from", "5", "--to", "2"], ["--wait", "0"], ["--sample", "x"]] {
            #expect(throws: UsageError.self, "\(bad)") {
                try FetchCommand(name: "fetch", arguments: arguments("fetch", ["--source", "s.json", "https://a/b"] + bad))
            }
        }
    }
}
