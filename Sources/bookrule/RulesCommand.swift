import BookRule
import Foundation

/// `bookrule rules`: the library's replace rules (Legado's `replaceRule` JSON), which `export`, `fetch --epub`/
/// `--txt` and `chapter` apply to the titles and text they write (never to the saved text).
struct RulesCommand: Command {
    static let helps = [CommandHelp(
        name: "rules", summary: "Import, list and test replace rules (Legado's replaceRule JSON), which export, fetch and "
            + "chapter apply",
        usage: ["bookrule rules import FILE… [--library PATH]",
                "bookrule rules list [--json] [--library PATH]",
                "bookrule rules test RULE TEXT [--title] [--explain] [--library PATH]",
                "bookrule rules remove N [--library PATH]"],
        about: """
        Replace rules change what `bookrule export` (and `fetch --epub`/`--txt`, and `chapter`) writes, as Legado's
        replace rules change what it shows: after
        the --convert conversion, each enabled rule whose scope covers the book (empty scope: every book; otherwise
        the scope must contain the book's name or its source URL, and excludeScope must not) runs over the chapter
        titles (scopeTitle) or text (scopeContent), in ascending order. The library's saved text never changes.
        Rules are kept in replace-rules.json beside the library; importing a rule with the name of one kept
        replaces it. A regex that gives up (the backtracking limit) or takes longer than its timeoutMillisecond
        (3000 by default) is disabled for the run with a warning naming it.

        RULE is a number from `rules list`; TEXT is the text to run it over (as chapter text, or with --title as a
        chapter title), ignoring the rule's scope and whether it is enabled.
        """,
        groups: [OptionGroup([
            .flag("--json", summary: "Print the list as JSON (the format `rules import` reads)"),
            .flag("--title", summary: "Test TEXT as a chapter title"),
            .flag("--explain", summary: "Say how many matches the rule replaced"),
            LibraryOptions.library,
        ])],
        operands: .file, subcommands: ["import", "list", "test", "remove"])]

    /// The subcommand, with its operands.
    enum Action {
        /// `import FILE…`: add the rules of these files, replacing kept ones of the same name.
        case importFiles([String])
        /// `list`: every kept rule.
        case list
        /// `test RULE TEXT`: run rule number `rule` over `text` as `target`.
        case test(rule: Int, text: String, target: ReplaceRule.Target)
        /// `remove N`.
        case remove(Int)
    }

    /// The subcommand, with its operands.
    let action: Action
    /// `--json`: the list as JSON.
    let json: Bool
    /// `--explain`: say how many matches the tested rule replaced.
    let explains: Bool
    /// `--library`, else the default library.
    let libraryPath: String

    init(name: String, arguments: CommandLineArguments) throws {
        let rest = Array(arguments.positionals.dropFirst())
        switch arguments.positionals.first ?? "list" {
        case "import":
            guard !rest.isEmpty else { throw UsageError("name one or more rule FILEs to import") }
            action = .importFiles(rest)
        case "list":
            guard rest.isEmpty else { throw UsageError("`rules list` takes no arguments") }
            action = .list
        case "test":
            guard rest.count == 2 else { throw UsageError("give a RULE number and the TEXT to test it on") }
            guard let number = Int(rest[0]) else {
                throw UsageError("RULE is a number from `bookrule rules list`, not \"\(rest[0])\"")
            }
            action = .test(rule: number, text: rest[1], target: arguments.has("--title") ? .title : .content)
        case "remove":
            guard rest.count == 1, let number = Int(rest[0]) else { throw UsageError("give the number of the rule to remove") }
            action = .remove(number)
        case let word:
            throw UsageError("unknown rules command \"\(word)\" (import, list, test or remove)")
        }
        json = arguments.has("--json")
        explains = arguments.has("--explain")
        libraryPath = try LibraryOptions(arguments).path
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let path = ReplaceRuleSet.path(forLibraryAt: libraryPath)
        var set = try ReplaceRuleSet.load(from: path)
        switch action {
        case .importFiles(let files):
            var imported: [ReplaceRule] = []
            for file in files {
                let parsed = try ReplaceRuleSet.parse(file: file)
                for warning in parsed.warnings { terminal.error("warning: \(warning)") }
                imported += parsed.rules
            }
            let counts = set.add(imported)
            try LocalFile.makeDirectories((path as NSString).deletingLastPathComponent)
            try set.save(to: path)
            terminal.print("imported \(counts.added) replace rule(s), replaced \(counts.replaced); \(set.rules.count) kept in \(path)")
        case .list:
            if json {
                terminal.print(try JSONWriter.string(set.rules, style: .pretty))
                return 0
            }
            if set.rules.isEmpty { terminal.print("no replace rules (bookrule rules import FILE adds them)") }
            for (index, rule) in set.rules.enumerated() {
                terminal.print("\(index + 1)  \(rule.name)\(rule.isEnabled ? "" : "  (disabled)")  order \(rule.order)  "
                               + "\(rule.isRegex ? "regex" : "text") \(rule.pattern) → \(rule.replacement.isEmpty ? "(deleted)" : rule.replacement)")
                terminal.print("     \(Self.describeScope(rule))")
            }
        case .test(let number, let text, let target):
            // The rule numbered `number`, taken from a copy of the set (which is not saved).
            var copy = set
            var tested = try copy.remove(number: number)
            tested.scope = ""
            tested.excludeScope = ""
            tested.isEnabled = true
            if target == .title { tested.scopeTitle = true } else { tested.scopeContent = true }
            let run = ReplaceRuleRun([tested], bookName: "", sourceURL: "")
            let output = run.apply(text, to: target)
            for warning in run.warnings { terminal.error("warning: \(warning)") }
            terminal.print(output)
            if explains {
                for tally in run.tallies {
                    terminal.error("\(tally.rule.name): \(tally.hits) hit(s)\(tally.disabled ? " (disabled)" : "")")
                }
            }
            return run.warnings.isEmpty ? 0 : 1
        case .remove(let number):
            let removed = try set.remove(number: number)
            try set.save(to: path)
            terminal.print("removed replace rule \(number) \(removed.name)")
        }
        return 0
    }

    /// Where `rule` applies, in words.
    static func describeScope(_ rule: ReplaceRule) -> String {
        let parts = [rule.scopeTitle ? "titles" : nil, rule.scopeContent ? "text" : nil].compactMap { $0 }
        let books = rule.scope.isEmpty ? "every book" : "books matching \(rule.scope)"
        let except = rule.excludeScope.isEmpty ? "" : " except \(rule.excludeScope)"
        return "\(parts.isEmpty ? "nothing" : parts.joined(separator: " and ")) of \(books)\(except)"
    }
}
