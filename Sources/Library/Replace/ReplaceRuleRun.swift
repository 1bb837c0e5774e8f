import Foundation
import BookRuleRegex

/// The replace rules that apply to one book, run over its chapters' titles and text in `order` (as Legado's
/// ContentProcessor runs them, after the Chinese script conversion): it counts each rule's hits and disables
/// for the rest of the run a rule whose regex gives up (`RegexLimits`) or takes longer than its
/// `timeoutMillisecond`, with a warning that names it.
public final class ReplaceRuleRun {
    /// One rule's work so far.
    public struct Tally: Sendable, Equatable {
        /// The rule.
        public let rule: ReplaceRule
        /// How many matches it replaced.
        public internal(set) var hits: Int
        /// Whether it was disabled for the run (see `warnings`).
        public internal(set) var disabled: Bool
    }

    private struct Prepared {
        let rule: ReplaceRule
        let regex: RegexPattern?
        let replacement: JavaReplacement
    }

    private let prepared: [Prepared]
    private let bookName: String
    private let sourceURL: String
    private let now: () -> Duration
    /// Every applicable rule's hits, in the order the rules run.
    public private(set) var tallies: [Tally]
    /// One sentence for each rule disabled during the run, naming it and saying why.
    public private(set) var warnings: [String] = []

    /// Prepares the enabled rules of `rules` that apply to the book `bookName` from `sourceURL` (see
    /// `ReplaceRule.applies`), sorted by `order`. `now` reads a monotonic clock (tests advance their own).
    public init(_ rules: [ReplaceRule], bookName: String, sourceURL: String, now: (() -> Duration)? = nil) {
        let applicable = rules.enumerated()
            .filter { $0.element.applies(to: .title, bookName: bookName, sourceURL: sourceURL)
                || $0.element.applies(to: .content, bookName: bookName, sourceURL: sourceURL) }
            .sorted { ($0.element.order, $0.offset) < ($1.element.order, $1.offset) }
            .map(\.element)
        var warnings: [String] = []
        prepared = applicable.compactMap { rule in
            guard rule.isRegex else { return Prepared(rule: rule, regex: nil, replacement: JavaReplacement(rule.replacement)) }
            do {
                return Prepared(rule: rule, regex: try RegexPattern(rule.pattern), replacement: JavaReplacement(rule.replacement))
            } catch {
                warnings.append("replace rule \"\(rule.name)\" disabled: \(error)")
                return nil
            }
        }
        tallies = prepared.map { Tally(rule: $0.rule, hits: 0, disabled: false) }
        self.warnings = warnings
        let start = ContinuousClock.now
        self.now = now ?? { ContinuousClock.now - start }
        self.bookName = bookName
        self.sourceURL = sourceURL
    }

    /// Whether no rule will change anything (none applies, or all were disabled).
    public var isEmpty: Bool { tallies.allSatisfy(\.disabled) }

    /// `text` (a chapter title or a chapter's text, as `target` says) with every applicable rule run over it
    /// in turn. In chapter text, picture lines (`ImageLine`) are left alone, so a URL still names its picture.
    public func apply(_ text: String, to target: ReplaceRule.Target) -> String {
        guard target == .content else { return applyRules(text, to: target) }
        return LibraryExport.transformingText(text) { applyRules($0, to: .content) }
    }

    private func applyRules(_ text: String, to target: ReplaceRule.Target) -> String {
        var text = text
        for (index, item) in prepared.enumerated() where !tallies[index].disabled
            && item.rule.applies(to: target, bookName: bookName, sourceURL: sourceURL) {
            let started = now()
            let result: (text: String, count: Int)
            do {
                result = try Self.replace(text, item)
            } catch {
                disable(index, because: "\(error)")
                continue
            }
            let elapsed = now() - started
            if elapsed > .milliseconds(item.rule.timeoutMillisecond) {
                disable(index, because: "it took \(Self.milliseconds(elapsed)) ms, more than its timeoutMillisecond of \(item.rule.timeoutMillisecond)")
                continue
            }
            if result.count > 0 {
                tallies[index].hits += result.count
                text = result.text
            }
        }
        return text
    }

    private func disable(_ index: Int, because reason: String) {
        tallies[index].disabled = true
        warnings.append("replace rule \"\(prepared[index].rule.name)\" disabled for this run: \(reason)")
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// `text` with `item`'s matches replaced, and how many there were.
    private static func replace(_ text: String, _ item: Prepared) throws -> (text: String, count: Int) {
        guard let regex = item.regex else {
            let count = text.components(separatedBy: item.rule.pattern).count - 1
            return count > 0 ? (text.replacingOccurrences(of: item.rule.pattern, with: item.rule.replacement), count) : (text, 0)
        }
        let matches = try regex.allMatches(in: text)
        guard !matches.isEmpty else { return (text, 0) }
        let bytes = Array(text.utf8)
        var out = ""
        var copied = 0
        for match in matches {
            if match.range.lowerBound > copied {
                out += String(decoding: bytes[copied..<match.range.lowerBound], as: UTF8.self)
            }
            out += item.replacement.expand(match)
            copied = max(copied, match.range.upperBound)
        }
        if copied < bytes.count { out += String(decoding: bytes[copied...], as: UTF8.self) }
        return (out, matches.count)
    }
}
