import BookRule
import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("Command-line parsing and exit codes")
struct CommandLineTests {
    private let source = CommandOption.value("--source", "FILE", summary: "")
    private let page = CommandOption.value("--page", "N", summary: "")

    @Test("--name value, --name=value, flags and positionals")
    func parsing() throws {
        let arguments = try CommandLineArguments(["--source", "a.json", "--page=2", "--json", "key word", "--", "--literal"],
                                                 options: [source, page, .flag("--json", summary: "")])
        #expect(arguments.value("--source") == "a.json")
        #expect(try arguments.positiveInt("--page", default: 1) == 2)
        #expect(arguments.has("--json"))
        #expect(arguments.positionals == ["key word", "--literal"])
    }

    @Test("usage errors are values with a message")
    func usageErrors() {
        #expect(throws: UsageError.self) { try CommandLineArguments(["--nope"], options: []) }
        #expect(throws: UsageError.self) { try CommandLineArguments(["--source"], options: [source]) }
        #expect(throws: UsageError.self) { try CommandLineArguments(["--move", "a"], options: [.pair("--move", "OLD", "NEW", summary: "")]) }
        #expect(throws: UsageError.self) {
            try CommandLineArguments(["--page", "0"], options: [page]).positiveInt("--page", default: 1)
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

    @Test("one unusable content rule: exit 2 from chapter and fetch alike, 0 from info (which does not need it), 1 from lint and test (which report it)")
    func unusableRuleExitStatus() async throws {
        let scratch = try ScratchDirectory("exit-status")
        let directory = scratch.path
        for name in ["book.html", "toc.html", "chapter-1.html"] {
            try FileManager.default.copyItem(atPath: "\(repositoryRoot)/Fixtures/authoring/pages/\(name)", toPath: "\(directory)/\(name)")
        }
        try """
        {"https://www.example.com/novel/5/": "book.html", "https://www.example.com/novel/5/all.html": "toc.html",
         "https://www.example.com/read/5/1.html": "chapter-1.html"}
        """.write(toFile: directory + "/pages.json", atomically: true, encoding: .utf8)
        let source = directory + "/broken.json"
        try """
        {"bookSourceName": "Broken content", "bookSourceUrl": "https://www.example.com",
         "ruleBookInfo": {"name": "//div[@class='book']/h1/text()", "tocUrl": "//a[@id='all-chapters']/@href"},
         "ruleToc": {"chapterList": "//ul[@id='chapter-list']/li/a", "chapterName": "text()", "chapterUrl": "@href"},
         "ruleContent": {"content": "@js: if ("}}
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let book = "https://www.example.com/novel/5/"
        func run(_ words: [String]) async -> (Int32, String) {
            let terminal = Terminal.capture()
            let status = await BookruleCLI.run(words, terminal: terminal)
            return (status, terminal.errors + terminal.output)
        }
        let chapter = await run(["chapter", "--source", source, "--saved-dir", directory, "https://www.example.com/read/5/1.html"])
        let fetch = await run(["fetch", "--source", source, "--saved-dir", directory, "--library", directory + "/library.sqlite", book])
        #expect(chapter.0 == ExitStatus.cannotRun.code, "\(chapter.1)")
        #expect(fetch.0 == ExitStatus.cannotRun.code, "\(fetch.1)")
        for (_, text) in [chapter, fetch] { #expect(text.contains("ruleContent.content"), "\(text)") }
        // fetch refused before reading anything: no chapters were tried (and failed one by one).
        #expect(!fetch.1.contains("failed chapters"), "\(fetch.1)")
        let info = await run(["info", "--source", source, "--saved-dir", directory, book])
        #expect(info.0 == ExitStatus.done.code, "\(info.1)")
        let lint = await run(["lint", source])
        #expect(lint.0 == ExitStatus.workFailed.code, "\(lint.1)")
        let test = await run(["test", source, "--saved-dir", directory, "--fixtures", directory, "--book", book])
        #expect(test.0 == ExitStatus.workFailed.code, "\(test.1)")
    }

    @Test("a file that is not a library gives exit 2 from every command that opens one")
    func notALibraryExitStatus() async throws {
        let scratch = try ScratchDirectory("exit-status")
        let library = scratch.path + "/library.sqlite"
        try "not a database, just text that is long enough to fill a header".write(toFile: library, atomically: true, encoding: .utf8)
        for words in [["library"], ["export", "1", "--txt"], ["update", "--all"], ["sources", "1"]] {
            let terminal = Terminal.capture()
            let status = await BookruleCLI.run(words + ["--library", library], terminal: terminal)
            #expect(status == ExitStatus.cannotRun.code, "\(words): \(terminal.errors)")
        }
    }

    @Test("errors map to one exit-status table: usage and unusable rules 2, other failures 1")
    func exitStatusTable() throws {
        #expect(ExitStatus(for: UsageError("x")) == .cannotRun)
        #expect(ExitStatus(for: EngineError.missingRule(field: "ruleToc.chapterList")) == .cannotRun)
        #expect(ExitStatus(for: EngineError.unusableRules(step: "content", problems: [])) == .cannotRun)
        #expect(ExitStatus(for: CancellationError()) == .workFailed)
        #expect([ExitStatus.done, .workFailed, .cannotRun].map(\.code) == [0, 1, 2])
        #expect(BookruleCLI.usage.contains("Exit status (every command): 0 done; 1 some of the work failed"))
        let chapterHelp = try #require(SourceCommand.help(for: "chapter")).text
        #expect(chapterHelp.contains("Exit status: 0 done, 1 the step failed"))
    }

    @Test("a missing source file is invalid input: exit 2 with the reason on stderr")
    func missingSource() async {
        let terminal = Terminal.capture()
        #expect(await BookruleCLI.run(["toc", "--source", "/nonexistent.json", "https://x.test/"], terminal: terminal) == 2)
        #expect(terminal.errors.contains("/nonexistent.json: cannot read the file: No such file or directory"))
        #expect(terminal.output.isEmpty)
    }
}
