import BookRuleEngine

/// How much of a set of sources bookrule can run: `bookrule lint --summary`.
///
/// Sources are de-duplicated by `bookSourceUrl` (community collections repeat sources) and only text sources
/// (`bookSourceType` 0) count, as the figures are about reading novels.
public struct CompatibilitySummary: Sendable {
    /// Sources read, before de-duplication.
    public private(set) var sourcesRead = 0
    /// Distinct text sources counted.
    public private(set) var counted = 0
    /// Sources with every rule bookrule reads runnable.
    public private(set) var fullyRunnable = 0
    /// Sources whose every `ruleToc` and `ruleContent` rule is runnable (and that have a chapter list and content).
    public private(set) var tocAndContentRunnable = 0
    /// Sources with an `exploreUrl`.
    public private(set) var withExplore = 0
    /// Of those, sources whose explore runs: `exploreUrl` usable and nothing stopping the explore step.
    public private(set) var exploreRunnable = 0
    /// Sources with login JavaScript: a `loginUrl` script or a `loginCheckJs`.
    public private(set) var withLoginScript = 0
    /// Of those, sources whose `loginUrl`, `loginUi` and `loginCheckJs` are all usable.
    public private(set) var loginScriptRunnable = 0
    /// Of the runnable ones, those naming a helper that cannot run here (a browser, a person), on some path.
    public private(set) var loginScriptWarned = 0
    /// Per field path (`ruleToc.chapterList`): how many sources set it, and in how many it runs.
    public private(set) var fields: [String: (present: Int, runnable: Int)] = [:]
    /// Per dialect: how many rules use it, and how many of those run.
    public private(set) var dialects: [String: (rules: Int, runnable: Int)] = [:]
    /// Problem reasons (field and reason, without the source's index) with how many sources have them.
    public private(set) var reasons: [String: Int] = [:]
    /// Sources with webView pages (`BookSource.webViewFields`), rendered by headless Chromium.
    public private(set) var withWebView = 0
    /// Of those, sources whose every `ruleToc` and `ruleContent` rule runs (0 when Chromium is not installed).
    public private(set) var webViewTocAndContentRunnable = 0
    /// Whether Chromium is installed: without it, a source with webView pages runs nothing that needs them.
    public let browserInstalled: Bool
    private var seen: Set<String> = []

    /// An empty summary; `browserInstalled` says whether webView pages can be rendered here.
    public init(browserInstalled: Bool = true) {
        self.browserInstalled = browserInstalled
    }

    /// The reason counted for a webView source when Chromium is missing.
    public static let browserMissing = "webView: needs Chromium, which is not installed (apt install chromium)"

    /// Counts `source` (skipped when it is a duplicate or not a text source).
    public mutating func add(_ source: BookSource) {
        sourcesRead += 1
        guard source.type == .text, !source.url.isEmpty, seen.insert(source.url).inserted else { return }
        counted += 1
        let problems = source.problems.map { ($0, Self.unindexed($0.field)) }
        let webView = !source.webViewFields.isEmpty
        let blocked = webView && !browserInstalled
        if webView { withWebView += 1 }
        if blocked { reasons[Self.browserMissing, default: 0] += 1 }
        if problems.isEmpty, !blocked { fullyRunnable += 1 }
        let tocContent = problems.filter { $0.1.hasPrefix("ruleToc.") || $0.1.hasPrefix("ruleContent.") || $0.1 == "ruleToc" || $0.1 == "ruleContent" }
        if tocContent.isEmpty, !blocked, source.toc[.chapterList] != nil, source.content[.content] != nil {
            tocAndContentRunnable += 1
            if webView { webViewTocAndContentRunnable += 1 }
        }
        if source.exploreURL != nil {
            withExplore += 1
            if source.problems(stopping: .explore).isEmpty, source.exploreListSection[.bookList] != nil {
                exploreRunnable += 1
            }
        }
        if source.login.writesScript {
            withLoginScript += 1
            if !problems.contains(where: { ["loginUrl", "loginUi", "loginCheckJs"].contains($0.1.split(separator: "[").first.map(String.init) ?? $0.1) }) {
                loginScriptRunnable += 1
                if !source.login.warnings.isEmpty { loginScriptWarned += 1 }
            }
        }
        for (problem, field) in problems {
            reasons["\(field): \(problem.reason)", default: 0] += 1
        }
        for section in RuleSectionName.allCases {
            let rules = source.section(section)
            for field in section.fields {
                let path = "\(section.rawValue).\(field.rawValue)"
                if let rule = rules[field] {
                    fields[path, default: (0, 0)].present += 1
                    fields[path, default: (0, 0)].runnable += 1
                    let dialect = rule.dialect?.rawValue ?? "empty"
                    dialects[dialect, default: (0, 0)].rules += 1
                    dialects[dialect, default: (0, 0)].runnable += 1
                } else if let problem = rules.problems[field] {
                    fields[path, default: (0, 0)].present += 1
                    let dialect = problem.dialect?.rawValue ?? "other"
                    dialects[dialect, default: (0, 0)].rules += 1
                }
            }
        }
    }

    /// `[3].ruleToc.chapterList` → `ruleToc.chapterList`.
    private static func unindexed(_ field: String) -> String {
        guard field.hasPrefix("["), let close = field.firstIndex(of: "]") else { return field }
        let rest = field[field.index(after: close)...]
        return String(rest.hasPrefix(".") ? rest.dropFirst() : rest)
    }

    /// The report as text lines.
    public func lines(topReasons: Int = 15) -> [String] {
        func percent(_ part: Int, _ whole: Int) -> String {
            whole == 0 ? "0.0%" : String(Double(Int(Double(part) * 1000 / Double(whole) + 0.5)) / 10) + "%"
        }
        var lines = [
            "sources read: \(sourcesRead); distinct text sources (by bookSourceUrl): \(counted)",
            "every ruleToc and ruleContent rule runnable: \(tocAndContentRunnable) (\(percent(tocAndContentRunnable, counted)))",
            "every rule runnable: \(fullyRunnable) (\(percent(fullyRunnable, counted)))",
            "explore runnable (of the sources with an exploreUrl): \(exploreRunnable) of \(withExplore) (\(percent(exploreRunnable, withExplore)))",
            "login scripts runnable (of the sources with a loginUrl script or loginCheckJs): \(loginScriptRunnable) of \(withLoginScript) (\(percent(loginScriptRunnable, withLoginScript)))"
                + "; \(loginScriptWarned) of them name a helper bookrule lacks (a browser…), failing if they reach it",
            "with webView pages (headless Chromium, \(browserInstalled ? "installed" : "not installed: apt install chromium")): \(withWebView); every ruleToc and ruleContent rule runnable: \(webViewTocAndContentRunnable) (\(percent(webViewTocAndContentRunnable, withWebView)))",
            "",
            "per field (sources that set it: runnable):",
        ]
        for section in RuleSectionName.allCases {
            for field in section.fields {
                let path = "\(section.rawValue).\(field.rawValue)"
                guard let counts = fields[path] else { continue }
                lines.append("  \(path.padding(toLength: 28, withPad: " ", startingAt: 0)) \(counts.present): \(counts.runnable) (\(percent(counts.runnable, counts.present)))")
            }
        }
        lines.append("")
        lines.append("per dialect (rules: runnable):")
        for (dialect, counts) in dialects.sorted(by: { $0.value.rules > $1.value.rules }) {
            lines.append("  \(dialect.padding(toLength: 16, withPad: " ", startingAt: 0)) \(counts.rules): \(counts.runnable)")
        }
        lines.append("")
        lines.append("top reasons a rule cannot run (sources):")
        for (reason, count) in reasons.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }).prefix(topReasons) {
            let short = reason.count > 110 ? String(reason.prefix(109)) + "…" : reason
            lines.append("  \(String(count).padding(toLength: 6, withPad: " ", startingAt: 0)) \(short)")
        }
        return lines
    }
}
