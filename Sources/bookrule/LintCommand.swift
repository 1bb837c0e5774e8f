import BookRule
import Foundation

/// `bookrule lint FILE…`: loads sources without fetching anything and lists every field that cannot run.
struct LintCommand: Command {
    static let helps = [CommandHelp(
        name: "lint", summary: "Check source files without fetching anything",
        usage: ["bookrule lint FILE... [--quiet]", "bookrule lint --summary DIR_OR_FILE..."],
        about: """
        Loads each source file, compiles every rule, and prints a verdict per source with every problem's file,
        line, column, field path, dialect and reason; RSS sources (订阅源: sourceUrl, ruleArticles…) too, marked
        (RSS). Nothing is fetched. Exit status 0 when every source is fully usable, 1 when some rule cannot run,
        2 when a file cannot be read or is not valid JSON.
        """,
        groups: [
            OptionGroup([
                .flag("--quiet", summary: "Print only the one-line summary per file"),
                .flag("--summary", summary: "Over all the sources given (directories: every .json in them), de-duplicated "
                      + "by bookSourceUrl, text sources only: how many run fully, per field, per dialect, and the top "
                      + "reasons for the rest"),
            ]),
        ],
        operands: .source)]

    /// The source files (with `--summary`, folders too).
    let paths: [String]
    /// `--quiet`: only each file's summary line.
    let quiet: Bool
    /// `--summary`: the compatibility figures over every source instead.
    let summarizes: Bool

    init(name: String, arguments: CommandLineArguments) throws {
        guard !arguments.positionals.isEmpty else { throw UsageError("name at least one source file") }
        paths = arguments.positionals
        quiet = arguments.has("--quiet")
        summarizes = arguments.has("--summary")
    }

    /// `3 problem(s): JavaScript ×2, CSS ×1`: problems counted by the dialect of the rule (`other` for fields
    /// that are not rules, such as a value of the wrong type).
    static func summary(of problems: [SourceProblem]) -> String {
        var counts: [(String, Int)] = []
        for problem in problems {
            let kind = problem.dialect?.rawValue ?? "other"
            if let index = counts.firstIndex(where: { $0.0 == kind }) { counts[index].1 += 1 } else { counts.append((kind, 1)) }
        }
        return "\(problems.count) problem(s): " + counts.map { "\($0.0) ×\($0.1)" }.joined(separator: ", ")
    }

    /// `--summary`: the compatibility figures over every source in `paths`.
    static func summary(_ paths: [String], terminal: Terminal) -> Int32 {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
                files += names.filter { $0.hasSuffix(".json") }.sorted().map { path + "/" + $0 }
            } else {
                files.append(path)
            }
        }
        var summary = CompatibilitySummary(browserInstalled: ChromiumBrowser.isInstalled)
        var status: Int32 = 0
        for file in files {
            do {
                for source in try SourceFile.load(contentsOf: file).bookSources { summary.add(source) }
            } catch {
                terminal.error("error: \(error)")
                status = 2
            }
        }
        for line in summary.lines() { terminal.print(line) }
        return status
    }

    func run(terminal: Terminal) async throws -> Int32 {
        if summarizes { return Self.summary(paths, terminal: terminal) }
        var status: Int32 = 0
        let chromium = ChromiumBrowser.isInstalled
        for path in paths {
            let sources: [BookSource]
            let rssSources: [RssSource]
            do {
                let file = try SourceFile.load(contentsOf: path)
                sources = file.bookSources
                rssSources = file.rssSources
            } catch {
                terminal.error("error: \(error)")
                status = 2
                continue
            }
            let broken = sources.filter { !$0.problems.isEmpty }
            let brokenRss = rssSources.filter { !$0.problems.isEmpty }
            let browsing = sources.filter { !$0.webViewFields.isEmpty }.count
            let browser = browsing == 0 ? "" : ", \(browsing) with webView pages (headless Chromium\(chromium ? "" : ", not installed: apt install chromium"))"
            // RSS sources (订阅源) are checked too: their fields and rules, named by path.
            let rss = rssSources.isEmpty ? "" : "\(rssSources.count) RSS source(s), \(rssSources.count - brokenRss.count) fully usable"
            if sources.isEmpty {
                terminal.print("\(path): \(rss)")
            } else {
                terminal.print("\(path): \(sources.count) source(s), \(sources.count - broken.count) fully usable\(browser)"
                               + (rss.isEmpty ? "" : "; \(rss)"))
            }
            if (!broken.isEmpty || !brokenRss.isEmpty) && status == 0 { status = 1 }
            guard !quiet else { continue }
            for source in rssSources {
                let label = source.origin.index.map { "[\($0)] " } ?? ""
                if source.problems.isEmpty {
                    terminal.print("  ok    \(label)\(source.name) (RSS)")
                } else {
                    terminal.print("  FAIL  \(label)\(source.name) (RSS): \(Self.summary(of: source.problems))")
                }
                for problem in source.problems {
                    let location = problem.location.map { ":\($0.line):\($0.column)" } ?? ""
                    terminal.print("          \(path)\(location): \(problem)")
                }
            }
            for source in sources {
                let label = source.origin.index.map { "[\($0)] " } ?? ""
                if source.problems.isEmpty {
                    terminal.print("  ok    \(label)\(source.name)")
                } else {
                    terminal.print("  FAIL  \(label)\(source.name): \(Self.summary(of: source.problems))")
                }
                for problem in source.problems {
                    let location = problem.location.map { ":\($0.line):\($0.column)" } ?? ""
                    terminal.print("          \(path)\(location): \(problem)")
                }
                let fields = source.webViewFields
                if !fields.isEmpty {
                    terminal.print("          needs Chromium for webView pages (\(fields.joined(separator: ", ")))"
                                   + (chromium ? "" : ": not installed, apt install chromium"))
                }
                for warning in source.warnings {
                    let location = warning.location.map { ":\($0.line):\($0.column)" } ?? ""
                    terminal.print("          \(path)\(location): warning: \(warning)")
                }
            }
        }
        return status
    }
}
