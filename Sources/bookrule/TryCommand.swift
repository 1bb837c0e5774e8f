import BookRule
import Foundation

/// `bookrule try RULE PAGE|URL`: one rule on one page, with what it was read as and what it matched.
struct TryCommand: Command {
    static let helps = [CommandHelp(
        name: "try", summary: "Evaluate one rule on a page (saved or fetched) and show what it matched",
        usage: ["bookrule try RULE PAGE|URL [--list LIST_RULE] [--url URL] [options]"],
        about: """
        Evaluates RULE (any dialect: XPath, JSoup, CSS, JSONPath, regex, templates) on a page and prints the dialect
        it was read as, the XPath it runs as (JSoup and CSS are translated), each node it matched (a short path and
        a snippet), its values after cleaning, and the time. PAGE is a saved file (- reads standard input); a URL
        is fetched once through the polite fetcher. Exit status 0 when the rule gave a value, 1 when it gave none,
        2 when it cannot run.
        """,
        groups: [
            OptionGroup([
                .value("--list", "LIST_RULE", summary: "Run RULE inside each element of LIST_RULE, as a TOC reads "
                       + "chapterName in chapterList"),
                .value("--url", "URL", summary: "The page's real URL, for a saved file: values read off a link attribute "
                       + "(@href, @src…) are shown resolved against it, as a URL field resolves them"),
                .value("--charset", "NAME", summary: "Decode the page as NAME (as a source's charset option does)"),
                .value("--limit", "N", summary: "Show at most N matches, values and list elements (default 20; all are "
                       + "counted), with --json too"),
                .flag("--json", summary: "Print the result as JSON"),
            ]),
            .fetching("Fetching (for a URL)"),
        ],
        operands: .file)]

    /// RULE: the rule to evaluate.
    let rule: String
    /// PAGE: a saved file, `-` (standard input) or an http(s) URL.
    let target: String
    /// `--list LIST_RULE`.
    let listRule: String?
    /// `--url URL`: the real URL of a saved page.
    let url: String?
    /// `--charset NAME`.
    let charset: String?
    /// `--limit N`.
    let limit: Int
    /// `--json`.
    let json: Bool
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.count == 2 else { throw UsageError("give a RULE and a PAGE (a file, - or a URL)") }
        limit = try arguments.positiveInt("--limit", default: 20)
        rule = arguments.positionals[0]
        target = arguments.positionals[1]
        listRule = arguments.value("--list")
        url = arguments.value("--url")
        if !URLReference.isHTTP(target), let url, !URLReference.isHTTP(url) {
            throw UsageError("--url takes the page's absolute http(s) URL, not \"\(url)\"")
        }
        charset = arguments.value("--charset")
        json = arguments.has("--json")
        fetching = try FetchOptions(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let document: HTMLDocument
        var status = 200
        let bytes: Int
        do {
            if URLReference.isHTTP(target) {
                (document, status, bytes) = try await RuleTrial.fetchPage(target, transport: fetching.fetcher(terminal: terminal),
                                                                          charset: charset)
            } else {
                let url = self.url ?? (target == "-" ? "file:///dev/stdin"
                    : URL(fileURLWithPath: target).standardizedFileURL.absoluteString)
                let page = try SavedPage.read(target, url: url)
                document = try HTMLDocument(bytes: page.body, url: url, charsetOption: charset)
                bytes = page.body.count
            }
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "try"))
            return 2
        } catch let error as EngineError {
            terminal.error("error: \(error)")
            return ExitStatus(for: error).code
        } catch {
            terminal.error("error: \(error)")
            return 2
        }

        let result: RuleTrialResult
        do {
            result = try RuleTrial(rule: rule, listRule: listRule, elementLimit: limit).run(on: document, status: status, bytes: bytes)
        } catch {
            terminal.error("error: \(error)")
            return 2
        }
        if json {
            do {
                terminal.print(try JSONWriter.string(result, style: .pretty))
            } catch {
                terminal.error("error: \(error)")
                return 1
            }
        } else {
            Self.printResult(result, limit: limit, terminal)
        }
        return result.hasValue ? 0 : 1
    }

    private static func printResult(_ result: RuleTrialResult, limit: Int, _ terminal: Terminal) {
        terminal.print("page     \(result.page.url) (\(result.page.charset), \(result.page.bytes) bytes)")
        if let list = result.list { printReading("list", list, terminal) }
        printReading("rule", result.rule, terminal)
        for warning in result.warnings { terminal.print("warning  \(warning)") }
        if let elements = result.elements, let count = result.listCount {
            terminal.print("list     \(count) element(s)")
            for element in elements.prefix(limit) {
                terminal.print("  \(element.index). \(element.path)  \(element.snippet)")
                for match in element.matches ?? [] { terminal.print("       matched \(match.path)  \(match.snippet)") }
                if let count = element.matchCount, count > (element.matches ?? []).count {
                    terminal.print("       … \(count - (element.matches ?? []).count) more match(es)")
                }
                terminal.print("       → " + (element.values.isEmpty ? "(nothing)" : element.values.map(quoted).joined(separator: ", ")))
            }
            if count > elements.prefix(limit).count { terminal.print("  … \(count - elements.prefix(limit).count) more element(s)") }
        } else if let matches = result.matches {
            let count = result.matchCount ?? matches.count
            terminal.print("matched  \(count) node(s)")
            for (index, match) in matches.enumerated() { terminal.print("  \(index + 1). \(match.path)  \(match.snippet)") }
            if count > matches.count { terminal.print("  … \(count - matches.count) more") }
        }
        terminal.print("values   \(result.valueCount) after cleaning")
        if result.elements == nil {
            for (index, value) in result.values.enumerated() { terminal.print("  \(index + 1). \(quoted(value))") }
            if result.valueCount > result.values.count { terminal.print("  … \(result.valueCount - result.values.count) more") }
        }
        terminal.print(String(format: "time     %.1f ms", result.milliseconds))
    }

    private static func printReading(_ label: String, _ reading: RuleTrialResult.Reading, _ terminal: Terminal) {
        terminal.print("\(label.padding(toLength: 8, withPad: " ", startingAt: 0)) \(reading.rule)")
        terminal.print("  read as \(reading.dialect)")
        for translation in reading.translations { terminal.print("  runs as \(translation)") }
    }

    private static func quoted(_ value: String) -> String {
        let oneLine = value.replacingOccurrences(of: "\n", with: "⏎")
        return "\"" + (oneLine.count > 200 ? String(oneLine.prefix(199)) + "…" : oneLine) + "\""
    }
}
