import BookRuleEngine
import BookRuleHTTP

/// `bookrule test` for an RSS source (docs/rss.md): its sorts, the first sort's first page of articles, and
/// the first article's text, each a step that passes or fails with what it found, on the source's fixture
/// (replayed) or live.
public struct RssCheck: Sendable {
    /// One step's outcome.
    public struct Step: Sendable, Equatable, Encodable {
        /// `sorts`, `articles` or `text`.
        public var name: String
        /// Whether it passed.
        public var passed: Bool
        /// What it found, or why it failed.
        public var detail: String
    }

    /// The outcome of one RSS source.
    public struct Report: Sendable, Equatable, Encodable {
        /// The source's `sourceName`.
        public var name: String
        /// The source's `sourceUrl`.
        public var url: String
        /// The steps run, in order; a failed one ends the check.
        public var steps: [Step]
        /// Whether every step passed.
        public var passed: Bool { !steps.isEmpty && steps.allSatisfy(\.passed) }
    }

    /// Runs the check of `source` through `connection` (a replay runs with the fixed script clock `bookrule
    /// test` uses, so the same recording answers the same way).
    public static func run(_ source: RssSource, connection: SourceTransport, replaying: Bool) async -> Report {
        let options = replaying ? EngineOptions(scriptClock: SourceCheck.replayClock) : EngineOptions()
        let reader = RssReader(source: source, connection: connection, options: options)
        var report = Report(name: source.name, url: source.url, steps: [])
        guard source.problems.isEmpty else {
            report.steps.append(Step(name: "load", passed: false,
                                     detail: source.problems.map(\.description).joined(separator: "; ")))
            return report
        }
        let sorts: [RssSort]
        do {
            sorts = try await reader.sorts()
            report.steps.append(Step(name: "sorts", passed: true, detail: "\(sorts.count) sort(s)"))
        } catch {
            report.steps.append(Step(name: "sorts", passed: false, detail: "\(error)"))
            return report
        }
        let page: RssArticlePage
        do {
            guard let sort = sorts.first else { throw RssError.noSorts }
            page = try await reader.articles(in: sort, page: 1)
        } catch {
            report.steps.append(Step(name: "articles", passed: false, detail: "\(error)"))
            return report
        }
        guard let first = page.articles.first else {
            report.steps.append(Step(name: "articles", passed: false,
                                     detail: "no article on \(page.url)" + (page.readAsFeed ? " (read as a feed)" : "")))
            return report
        }
        report.steps.append(Step(name: "articles", passed: true, detail: "\(page.articles.count) article(s) on \(page.url)"
                                 + (page.nextPage.map { ", next page \($0)" } ?? "")))
        guard source.rules.texts[.ruleContent] != nil || (first.description ?? first.content) != nil else { return report }
        do {
            let text = try await reader.text(of: first)
            let from = source.rules.texts[.ruleContent] == nil ? "its description" : "ruleContent on \(text.url)"
            report.steps.append(Step(name: "text", passed: !text.text.isEmpty,
                                     detail: text.text.isEmpty ? (text.emptyReason ?? "no text from \(from)")
                                        : "\(text.text.count) character(s) of \"\(first.title)\" from \(from)"))
        } catch {
            report.steps.append(Step(name: "text", passed: false, detail: "\(error)"))
        }
        return report
    }
}
