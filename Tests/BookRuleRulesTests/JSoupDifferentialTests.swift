import Testing
@testable import BookRuleDocument
@testable import BookRuleLibrary
@testable import BookRuleRules
import TestSupport

/// bookrule's CSS and JSoup-rule translations against jsoup's own answers, recorded in
/// `JSoupDifferentialFixture.swift` by `scripts/jsoup-differential.sh` (generated pages, every element with a
/// `data-id`; each selector run from the page and from a few elements). The result is recorded in
/// docs/compatibility.md.
@Suite("Selector translation agrees with jsoup")
struct JSoupDifferentialTests {
    /// Selectors bookrule refuses, with the exact error; jsoup answers them (or rejects them too).
    static let untranslatable: [String: String] = [
        "[title=it's]": #"CSS "[title=it's]" cannot be translated: '[' is not closed"#,
        "[*]": #"CSS "[*]" cannot be translated: jsoup before 1.17 (Legado ships 1.16) looks for an attribute literally named "*", so it matches nothing"#,
        "tag.div@ul li.0": #"JSoup segment "ul li.0" cannot be translated: an index after the first segment needs the selector as one XPath step, and in "ul li" a descendant combinator here would have to stop at the context element, which an XPath 1.0 predicate cannot see"#,
    ]

    /// How one answer compared.
    enum Outcome: Hashable {
        case agree
        /// jsoup (or Legado's rule code) throws and bookrule refuses the selector too.
        case bothReject
        /// jsoup's `select` also returns the Document itself (for `*`, `:not(…)`, `:lt`/`:eq` from the page);
        /// libxml2's document node is not an element. Otherwise equal.
        case documentNode
        /// Legado lists an element once per (nested) context element that reaches it, in per-context order;
        /// the XPath node-set has each once, in document order. Otherwise equal.
        case legadoRepeats
        /// Legado's range index (`[1:3]`, `[-1:0]`) fails when the segment selected nothing (it indexes -1);
        /// bookrule selects nothing.
        case legadoEmptyRangeFailure
        /// Listed in `untranslatable` with its exact error.
        case untranslatable
        /// On a table page, jsoup selects a `tbody` it inserted where bookrule (libxml2 inserts none) selects the
        /// table, which its optional `tbody` step stands for. Otherwise equal.
        case insertedTableBody
        /// Children of a table (`tag.table@children`): jsoup's are the `tbody` it inserted, bookrule's the rows
        /// the page wrote in the table (libxml2's tree). Otherwise equal.
        case tableChildren
        /// A rule without `tbody` (`table > tr`) on a table page: jsoup's rows are in its inserted `tbody`, so it
        /// selects nothing; bookrule matches the rows the page wrote in the table, as it always has.
        case bareRows
        case disagree
    }

    struct Selector {
        let kind: String
        let text: String
    }

    @Test("every generated page parses to the same tree in jsoup and libxml2, and every selector agrees")
    func agreesWithJsoup() async throws {
        try await offCooperativePool {
            let pages = JSoupDifferentialFixture.pages.split(separator: "\n").map(String.init)
            let selectors = JSoupDifferentialFixture.selectors.split(separator: "\n").map { line in
                let parts = line.split(separator: "\t", maxSplits: 1).map(String.init)
                return Selector(kind: parts[0], text: parts.count > 1 ? parts[1] : "")
            }
            let documents = try pages.map { try page($0) }
            let labelAll = try XPathExpression("descendant::*")
            var order: [Int: [String: Int]] = [:]

            var translations: [Int: Result<(XPathExpression, Bool), CSSTranslationError>] = [:]
            for (index, selector) in selectors.enumerated() {
                do {
                    let translated: (String, Bool)
                    if selector.kind.hasSuffix("css") {
                        translated = (try CSSTranslator.xpath(selector.text), false)
                    } else {
                        let result = try JSoupRuleTranslator.translate(selector.text, isList: true)
                        translated = (result.xpath, result.reversed)
                    }
                    // As RuleParser compiles it: a `tbody` step optional (the table pages).
                    let xpath = TableBodyAlternatives.rewrite(translated.0)
                    translations[index] = .success((try XPathExpression(xpath), translated.1))
                } catch let error as CSSTranslationError {
                    translations[index] = .failure(error)
                } catch {
                    Issue.record("\(selector.text): the translation does not compile: \(error)")
                }
            }

            var counts: [Outcome: Int] = [:]
            var outcomeSelectors: [Outcome: Set<Int>] = [:]
            var failures: [String] = []
            for line in JSoupDifferentialFixture.expected.split(separator: "\n") {
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                if fields[0] == "tree" {
                    let pageIndex = Int(fields[1])!
                    let ours = try labels(labelAll.evaluate(at: documents[pageIndex].root))
                    // The one difference table pages are there for: the tbody jsoup inserts.
                    let theirs = fields[2].split(separator: " ").filter { !$0.hasPrefix("<tbody>@") }.joined(separator: " ")
                    #expect(ours.joined(separator: " ") == theirs, "page \(pageIndex) parses differently")
                    order[pageIndex] = Dictionary(uniqueKeysWithValues: ours.enumerated().map { ($1, $0) })
                    continue
                }
                let selectorIndex = Int(fields[0])!
                let pageIndex = Int(fields[1])!
                let contextLabel = fields[2]
                let expected = fields[3]
                let selector = selectors[selectorIndex]
                let document = documents[pageIndex]
                let context = try contextLabel == "#document" ? document.root : element(contextLabel, in: document)

                let outcome: Outcome
                var ours = ""
                switch translations[selectorIndex] {
                case .failure(let error)?:
                    ours = "!\(error)"
                    if expected.hasPrefix("!") {
                        outcome = .bothReject
                    } else if Self.untranslatable[selector.text] == error.description {
                        outcome = .untranslatable
                    } else {
                        outcome = .disagree
                    }
                case .success(let (expression, reversed))?:
                    var found = try labels(expression.evaluate(at: context))
                    if reversed { found.reverse() }
                    ours = found.joined(separator: " ")
                    let theirs = expected.split(separator: " ").map(String.init)
                    if ours == expected {
                        outcome = .agree
                    } else if theirs.first == "#document", Array(theirs.dropFirst()) == found {
                        outcome = .documentNode
                    } else if selector.kind.hasSuffix("jsoup"), expected == "!IndexOutOfBoundsException", found.isEmpty {
                        outcome = .legadoEmptyRangeFailure
                    } else if selector.kind.hasSuffix("jsoup"), !expected.hasPrefix("!"),
                              let positions = order[pageIndex],
                              Self.documentOrder(theirs, positions, reversed: reversed) == found {
                        outcome = .legadoRepeats
                    } else if theirs.contains(where: { $0.hasPrefix("<tbody>@") }), let positions = order[pageIndex],
                              Self.documentOrder(theirs.map(Self.insertedTableBodyAsTable), positions, reversed: reversed) == found {
                        outcome = .insertedTableBody
                    } else if theirs.contains(where: { $0.hasPrefix("<tbody>@") }), let positions = order[pageIndex],
                              try Self.documentOrder(theirs.flatMap({ try Self.rowsForInsertedTableBody($0, in: document) }),
                                                     positions, reversed: reversed) == found {
                        outcome = .tableChildren
                    } else if selector.kind.hasPrefix("table-"), expected.isEmpty, !selector.text.contains("tbody"), !found.isEmpty {
                        outcome = .bareRows
                    } else {
                        outcome = .disagree
                    }
                case nil:
                    outcome = .disagree
                }
                counts[outcome, default: 0] += 1
                outcomeSelectors[outcome, default: []].insert(selectorIndex)
                if outcome == .disagree {
                    failures.append("\(selector.kind) \(selector.text) | page \(pageIndex) from \(contextLabel)\n  jsoup:    \(expected)\n  bookrule: \(ours)")
                }
            }
            for failure in failures.prefix(40) { Issue.record(Comment(rawValue: failure)) }
            let total = counts.values.reduce(0, +)
            let untranslatedSelectors = outcomeSelectors[.untranslatable]?.count ?? 0
            print("""
                jsoup differential (jsoup \(JSoupDifferentialFixture.jsoupVersion)): \(selectors.count) selectors × \(pages.count) pages, \
                \(total) answers: \(counts[.agree] ?? 0) agree, \(counts[.bothReject] ?? 0) rejected by both, \
                \(counts[.documentNode] ?? 0) differ only by jsoup's Document node (\(outcomeSelectors[.documentNode]?.count ?? 0) selectors), \
                \(counts[.legadoRepeats] ?? 0) only by Legado's repeats/per-context order (\(outcomeSelectors[.legadoRepeats]?.count ?? 0) selectors), \
                \(counts[.legadoEmptyRangeFailure] ?? 0) where Legado's range index fails on an empty selection, \
                \(counts[.untranslatable] ?? 0) untranslatable (\(untranslatedSelectors) selectors), \
                \(counts[.disagree] ?? 0) disagree
                """)
            print("  table pages: \(counts[.insertedTableBody] ?? 0) differ only by jsoup's inserted tbody, "
                + "\(counts[.bareRows] ?? 0) where a rule without tbody matches rows libxml2 left in the table, "
                + "\(counts[.tableChildren] ?? 0) where a table's children are its rows, not jsoup's tbody")
            for outcome in [Outcome.bothReject, .documentNode, .legadoRepeats, .legadoEmptyRangeFailure, .untranslatable,
                            .insertedTableBody, .bareRows, .tableChildren] {
                let names = (outcomeSelectors[outcome] ?? []).sorted().map { selectors[$0].text }
                if !names.isEmpty { print("  \(outcome): \(names.joined(separator: " ; "))") }
            }
        }
    }

    /// jsoup's label for a `tbody` it inserted (`<tbody>@t1`) as the table's, which bookrule selects instead.
    static func insertedTableBodyAsTable(_ label: String) -> String {
        label.hasPrefix("<tbody>@") ? String(label.dropFirst("<tbody>@".count)) : label
    }

    /// For jsoup's inserted `tbody` (`<tbody>@t1`), the rows libxml2 leaves in that table; any other label as it is.
    private static func rowsForInsertedTableBody(_ label: String, in document: HTMLDocument) throws -> [String] {
        guard label.hasPrefix("<tbody>@") else { return [label] }
        let table = label.dropFirst("<tbody>@".count)
        let rows = try XPathExpression("//*[@data-id='\(table)']/tr")
        guard case .nodes(let nodes) = try rows.evaluate(at: document.root) else { return [] }
        return nodes.map { $0.attribute("data-id") ?? "<tr>" }
    }

    /// Legado's list with repeats removed, in document order (reversed when the translation reverses).
    static func documentOrder(_ labels: [String], _ positions: [String: Int], reversed: Bool) -> [String] {
        var seen = Set<String>()
        let unique = labels.filter { seen.insert($0).inserted }
        let sorted = unique.sorted { (positions[$0] ?? -1) < (positions[$1] ?? -1) }
        return reversed ? sorted.reversed() : sorted
    }

    private func labels(_ value: XPathValue) -> [String] {
        guard case .nodes(let nodes) = value else { return ["<not a node-set>"] }
        return nodes.map { node in
            if node.kind == .document { return "#document" }
            return node.attribute("data-id") ?? "<\(node.name)>"
        }
    }

    private func element(_ label: String, in document: HTMLDocument) throws -> HTMLNode {
        let expression = try XPathExpression("//*[@data-id='\(label)']")
        guard case .nodes(let nodes) = try expression.evaluate(at: document.root), let node = nodes.first else {
            throw TestFailure("no element \(label)")
        }
        return node
    }
}
