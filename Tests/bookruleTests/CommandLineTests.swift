import Testing
@testable import bookrule

@Suite("Command-line parsing and exit codes")
struct CommandLineTests {
    @Test("--name value, --name=value, flags and positionals")
    func parsing() throws {
        let arguments = try CommandLineArguments(["--source", "a.json", "--page=2", "--json", "key word", "--", "--literal"],
                                                 valueOptions: ["--source", "--page"], flagOptions: ["--json"])
        #expect(arguments.value("--source") == "a.json")
        #expect(try arguments.positiveInt("--page", default: 1) == 2)
        #expect(arguments.has("--json"))
        #expect(arguments.positionals == ["key word", "--literal"])
    }

    @Test("usage errors are values with a message")
    func usageErrors() {
        #expect(throws: UsageError.self) { try CommandLineArguments(["--nope"], valueOptions: [], flagOptions: []) }
        #expect(throws: UsageError.self) { try CommandLineArguments(["--source"], valueOptions: ["--source"], flagOptions: []) }
        #expect(throws: UsageError.self) {
            try CommandLineArguments(["--page", "0"], valueOptions: ["--page"], flagOptions: []).positiveInt("--page", default: 1)
        }
    }

    @Test("help and version exit 0; unknown commands and bad flags exit 2")
    func exitCodes() async {
        let help = Terminal.capture()
        #expect(await BookruleCLI.run(["--help"], terminal: help) == 0)
        #expect(help.output.contains("Commands:"))
        let version = Terminal.capture()
        #expect(await BookruleCLI.run(["--version"], terminal: version) == 0)
        #expect(version.output.hasPrefix("bookrule "))
        let unknown = Terminal.capture()
        #expect(await BookruleCLI.run(["frobnicate"], terminal: unknown) == 2)
        #expect(unknown.errors.contains("unknown command \"frobnicate\""))
        let badFlag = Terminal.capture()
        #expect(await BookruleCLI.run(["toc", "--bogus"], terminal: badFlag) == 2)
        #expect(badFlag.errors.contains("unknown option --bogus"))
        let commandHelp = Terminal.capture()
        #expect(await BookruleCLI.run(["chapter", "--help"], terminal: commandHelp) == 0)
        #expect(commandHelp.output.contains("--next URL"))
    }

    @Test("a missing source file is invalid input: exit 2 with the reason on stderr")
    func missingSource() async {
        let terminal = Terminal.capture()
        #expect(await BookruleCLI.run(["toc", "--source", "/nonexistent.json", "https://x.test/"], terminal: terminal) == 2)
        #expect(terminal.errors.contains("/nonexistent.json: cannot read the file: No such file or directory"))
        #expect(terminal.output.isEmpty)
    }
}
