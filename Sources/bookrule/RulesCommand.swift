import BookRule
import Foundation

/// `bookrule rules`: the library's replace rules (Legado's `replaceRule` JSON), which `export`, `fetch --epub`/
/// `--txt` and `chapter` apply to the titles and text they write (never to the saved text).
enum RulesCommand {
    static let help = """
    Usage: bookrule rules import FILE… [--library PATH]
           bookrule rules list [--json] [--library PATH]
           bookrule rules test RULE TEXT [--title] [--explain] [--library PATH]
           bookrule rules remove N [--library PATH]

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

    Options:
      --json              Print the list as JSON (the format `rules import` reads)
      --title             Test TEXT as a chapter title
      --explain           Say how many matches the rule replaced
    \(LibraryAccess.help)  -h, --help          Show this help
    """

    static func run(_ words: [String], terminal: Terminal) -> Int32 {
        do {
            let arguments = try CommandLineArguments(words, valueOptions: ["--library"],
                                                     flagOptions: ["--help", "--json", "--title", "--explain"])
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            let path = ReplaceRuleSet.path(forLibraryAt: LibraryAccess.path(arguments))
            var set = try ReplaceRuleSet.load(from: path)
            let rest = Array(arguments.positionals.dropFirst())
            switch arguments.positionals.first ?? "list" {
            case "import":
                guard !rest.isEmpty else { throw UsageError("name one or more rule FILEs to import") }
                var imported: [ReplaceRule] = []
                for file in rest {
                    let parsed = try ReplaceRuleSet.parse(file: file)
                    for warning in parsed.warnings { terminal.error("warning: \(warning)") }
                    imported += parsed.rules
                }
                let counts = set.add(imported)
                try LocalFile.makeDirectories((path as NSString).deletingLastPathComponent)
                try set.save(to: path)
                terminal.print("imported \(counts.added) replace rule(s), replaced \(counts.replaced); \(set.rules.count) kept in \(path)")
            case "list":
                guard rest.isEmpty else { throw UsageError("`rules list` takes no arguments") }
                if arguments.has("--json") {
                    terminal.print(try JSONWriter.string(set.rules, style: .pretty))
                    return 0
                }
                if set.rules.isEmpty { terminal.print("no replace rules (bookrule rules import FILE adds them)") }
                for (index, rule) in set.rules.enumerated() {
                    terminal.print("\(index + 1)  \(rule.name)\(rule.isEnabled ? "" : "  (disabled)")  order \(rule.order)  "
                                   + "\(rule.isRegex ? "regex" : "text") \(rule.pattern) → \(rule.replacement.isEmpty ? "(deleted)" : rule.replacement)")
                    terminal.print("     \(describeScope(rule))")
                }
            case "test":
                guard rest.count == 2 else { throw UsageError("give a RULE number and the TEXT to test it on") }
                let rule = try pick(rest[0], in: set)
                let target: ReplaceRule.Target = arguments.has("--title") ? .title : .content
                var tested = rule
                tested.scope = ""
                tested.excludeScope = ""
                tested.isEnabled = true
                if target == .title { tested.scopeTitle = true } else { tested.scopeContent = true }
                let run = ReplaceRuleRun([tested], bookName: "", sourceURL: "")
                let output = run.apply(rest[1], to: target)
                for warning in run.warnings { terminal.error("warning: \(warning)") }
                terminal.print(output)
                if arguments.has("--explain") {
                    for tally in run.tallies {
                        terminal.error("\(tally.rule.name): \(tally.hits) hit(s)\(tally.disabled ? " (disabled)" : "")")
                    }
                }
                return run.warnings.isEmpty ? 0 : 1
            case "remove":
                guard rest.count == 1, let number = Int(rest[0]) else { throw UsageError("give the number of the rule to remove") }
                let removed = try set.remove(number: number)
                try set.save(to: path)
                terminal.print("removed replace rule \(number) \(removed.name)")
            default:
                throw UsageError("unknown rules command \"\(arguments.positionals[0])\" (import, list, test or remove)")
            }
            return 0
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "rules"))
            return 2
        } catch let error as ReplaceRuleError {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return 1
        }
    }

    /// The rule `word` numbers.
    static func pick(_ word: String, in set: ReplaceRuleSet) throws -> ReplaceRule {
        guard let number = Int(word) else { throw UsageError("RULE is a number from `bookrule rules list`, not \"\(word)\"") }
        var copy = set
        return try copy.remove(number: number)
    }

    /// Where `rule` applies, in words.
    static func describeScope(_ rule: ReplaceRule) -> String {
        let parts = [rule.scopeTitle ? "titles" : nil, rule.scopeContent ? "text" : nil].compactMap { $0 }
        let books = rule.scope.isEmpty ? "every book" : "books matching \(rule.scope)"
        let except = rule.excludeScope.isEmpty ? "" : " except \(rule.excludeScope)"
        return "\(parts.isEmpty ? "nothing" : parts.joined(separator: " and ")) of \(books)\(except)"
    }
}
