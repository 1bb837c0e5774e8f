import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP
import BookRuleRules

/// One rule tried on one page, as `bookrule try` does: how the rule was read (dialect, XPath translation,
/// a warning when it probably means something else), every node it matched with a short path and a snippet,
/// and its values after the cleaning the engine applies; with a list rule, the rule inside each element of the
/// list, as a TOC or search reads its fields.
public struct RuleTrial: Sendable {
    /// The rule to try.
    public let rule: String
    /// The list rule whose elements the rule runs inside, if any (`ruleToc.chapterList`, say).
    public let listRule: String?
    /// At most this many list elements, matched nodes and values are reported (all are counted).
    public let elementLimit: Int

    /// Creates a trial.
    public init(rule: String, listRule: String? = nil, elementLimit: Int = 50) {
        self.rule = rule
        self.listRule = listRule
        self.elementLimit = elementLimit
    }

    /// Fetches `url` through `transport` (the polite fetcher) and parses the answer, whatever its status;
    /// `bytes` is the body's size as received.
    public static func fetchPage(_ url: String, transport: any HTTPTransport,
                                 charset: String? = nil) async throws -> (document: HTMLDocument, status: Int, bytes: Int) {
        guard URLReference.isHTTP(url) else { throw EngineError.invalidURL(field: "the page", url: url) }
        let response: HTTPResponse
        do {
            response = try await transport.send(HTTPRequest(url: url))
        } catch {
            throw EngineError.transport(url: url, error: error)
        }
        do {
            let document = try HTMLDocument(bytes: response.body, url: response.url, contentType: response.contentType,
                                            charsetOption: charset)
            return (document, response.status, response.body.count)
        } catch {
            throw EngineError.document(url: response.url, error: error)
        }
    }

    /// Runs the trial on `document`, whose body was `bytes` long as received (nil: its decoded size); throws
    /// when a rule does not compile or fails while running. Values read off a link attribute (`@href`, `@src`…)
    /// are resolved against an http(s) page URL, as a URL field's are.
    public func run(on document: HTMLDocument, status: Int = 200, bytes: Int? = nil) throws(RuleError) -> RuleTrialResult {
        let clock = ContinuousClock()
        let started = clock.now
        let environment = RuleEnvironment(baseURL: document.baseURL)
        var warnings: [String] = []
        if let note = document.charset.note { warnings.append("decoded as \(document.charset.charset): \(note)") }
        if let page = AntiBotPage.detect(html: String(document.sourceText.prefix(64 * 1024)), status: status) {
            warnings.append("the page is \(page)")
        }
        if !(200..<300).contains(status) { warnings.append("the page answered HTTP \(status)") }

        let summary = RuleTrialResult.Page(url: document.url, charset: document.charset.description,
                                           bytes: bytes ?? document.sourceByteCount, status: status)
        let linkBase = URLReference.isHTTP(document.baseURL) && Self.readsLink(rule) ? document.baseURL : nil
        let limit = elementLimit
        guard let listRule else {
            let parsed = try RuleParser.parse(rule, field: "rule", kind: .string)
            let reading = Self.reading(parsed, kind: .string)
            let context = document.rootContext
            let matched = try parsed.matchedNodes(in: context, environment: environment)
            let values = try parsed.texts(in: context, environment: environment).map { Self.cleaned($0, linkBase: linkBase) }
            return RuleTrialResult(page: summary, rule: reading, list: nil, listCount: nil,
                                   matches: matched.map { $0.prefix(limit).map(Self.match) }, matchCount: matched?.count,
                                   values: Array(values.prefix(limit)), valueCount: values.count,
                                   hasValue: values.contains { !$0.isEmpty }, elements: nil,
                                   warnings: warnings + (reading.warning.map { [$0] } ?? []),
                                   milliseconds: Self.milliseconds(clock.now - started))
        }
        let list = try RuleParser.parse(listRule, field: "list", kind: .list)
        let fieldKind: RuleKind = list.dialect == .allInOne ? .groupField : .string
        let parsed = try RuleParser.parse(rule, field: "rule", kind: fieldKind)
        let listReading = Self.reading(list, kind: .list)
        let reading = Self.reading(parsed, kind: fieldKind)
        let items = try list.elements(in: document.rootContext, environment: environment)
        var elements: [RuleTrialResult.Element] = []
        var values: [String] = []
        var valueCount = 0
        var hasValue = false
        var emptyCount = 0
        for (index, item) in items.enumerated() {
            let itemValues = try parsed.texts(in: item, environment: environment).map { Self.cleaned($0, linkBase: linkBase) }
            valueCount += itemValues.count
            if values.count < limit { values += itemValues.prefix(limit - values.count) }
            if itemValues.allSatisfy(\.isEmpty) { emptyCount += 1 } else { hasValue = true }
            guard index < limit else { continue }
            let matched = try parsed.matchedNodes(in: item, environment: environment)
            let (path, snippet) = Self.describe(item)
            elements.append(RuleTrialResult.Element(index: index + 1, path: path, snippet: snippet,
                                                    matches: matched.map { $0.prefix(limit).map(Self.match) },
                                                    matchCount: matched?.count, values: itemValues))
        }
        if !items.isEmpty && emptyCount == items.count {
            warnings.append("the rule gave nothing in any of the \(items.count) list element(s)")
        } else if emptyCount > 0 {
            warnings.append("the rule gave nothing in \(emptyCount) of the \(items.count) list element(s)")
        }
        return RuleTrialResult(page: summary, rule: reading, list: listReading, listCount: items.count, matches: nil,
                               matchCount: nil, values: values, valueCount: valueCount, hasValue: hasValue, elements: elements,
                               warnings: warnings + [listReading.warning, reading.warning].compactMap { $0 },
                               milliseconds: Self.milliseconds(clock.now - started))
    }

    // MARK: - Pieces

    private static func reading(_ rule: Rule, kind: RuleKind) -> RuleTrialResult.Reading {
        let translations = rule.xpathTranslations
        let asWritten = rule.text.trimmingASCIIWhitespace()
        // An XPath rule shows its rewriting only when the rewriting changed it.
        let shown = translations == [asWritten] || (rule.dialect == .xpath && translations.count == 1
                                                     && translations[0] == asWritten.replacingPrefix("@XPath:")) ? [] : translations
        return RuleTrialResult.Reading(rule: rule.text, dialect: rule.dialect?.rawValue ?? "empty", translations: shown,
                                       warning: RuleMisreading.warning(for: rule.text, kind: kind))
    }

    /// A value as the engine cleans it: markup read once (tags dropped, entities decoded), text split into
    /// trimmed paragraphs.
    public static func cleaned(_ value: RuleText) -> String {
        value.isMarkup ? HTMLTextFormatter.text(fromMarkup: value.text) : HTMLTextFormatter.paragraphs(of: value.text)
    }

    /// `cleaned(_:)`, then, with `linkBase`, a one-line value resolved against it as a URL field resolves it.
    private static func cleaned(_ value: RuleText, linkBase: String?) -> String {
        let text = cleaned(value)
        guard let linkBase, !text.isEmpty, !text.contains("\n") else { return text }
        return URLReference.resolve(text, against: linkBase) ?? text
    }

    /// Attributes whose values are links.
    private static let linkAttributes: Set<String> = ["href", "src", "data-src", "data-original", "action", "poster"]

    /// Whether the rule's last step reads a link attribute (`//a/@href`, `a@href`, `tag.img@src`, or `href` run
    /// inside list elements), looking at the rule before any `##` clean-up.
    static func readsLink(_ rule: String) -> Bool {
        let path = (rule.components(separatedBy: "##").first ?? rule).trimmingASCIIWhitespace().lowercased()
        guard let last = path.split(separator: "@", omittingEmptySubsequences: false).last else { return false }
        return linkAttributes.contains(last.trimmingASCIIWhitespace())
    }

    private static func match(_ node: HTMLNode) -> RuleTrialResult.Match {
        RuleTrialResult.Match(path: node.shortPath(), snippet: snippet(node))
    }

    private static func describe(_ context: RuleContext) -> (path: String, snippet: String) {
        switch context {
        case .node(let node): return (node.shortPath(), snippet(node))
        case .match(let match): return ("regex match", shorten(match[0] ?? ""))
        case .text(let text): return ("text", shorten(text))
        case .json: return ("JSON value", "")
        }
    }

    private static func snippet(_ node: HTMLNode) -> String {
        switch node.kind {
        case .attribute: return shorten("\(node.name)=\"\(node.stringValue)\"")
        case .text, .other: return shorten(node.stringValue)
        case .element, .document: return shorten(node.outerHTML)
        }
    }

    private static func shorten(_ text: String, limit: Int = 120) -> String {
        let collapsed = HTMLTextFormatter.collapsingWhitespace(text)
        return collapsed.count > limit ? String(collapsed.prefix(limit - 1)) + "…" : collapsed
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}

private extension String {
    func replacingPrefix(_ prefix: String) -> String {
        lowercased().hasPrefix(prefix.lowercased()) ? String(dropFirst(prefix.count)) : self
    }
}
