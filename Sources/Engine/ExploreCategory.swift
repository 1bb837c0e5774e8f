import BookRuleJSON

/// One entry of a source's explore screen (Legado's 发现, from `exploreUrl`): a category of books to browse,
/// or, without a URL, a header that groups the categories after it.
public struct ExploreCategory: Sendable, Equatable, Codable {
    /// What the entry is called (`玄幻`, `排行榜`).
    public var title: String
    /// The category's URL template (`/sort/1/{{page}}.html`, with the options and scripts a `searchUrl` may
    /// have); nil for a header.
    public var url: String?

    /// Creates an entry.
    public init(title: String, url: String?) {
        self.title = title
        self.url = url
    }

    /// Whether the entry is a header rather than a category.
    public var isHeader: Bool { url == nil }

    /// Reads the categories an `exploreUrl` (or what its script gave) lists, in either of Legado's forms: a JSON
    /// array of `{title, url, style}` objects, or `title::url` entries separated by `&&` or line breaks. An
    /// entry without a URL (`title` alone, `title::`, an object without `url`) is a header; empty entries are
    /// skipped. `style` (layout hints for Legado's screen) is not kept.
    public static func parse(_ text: String) throws(ExploreError) -> [ExploreCategory] {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.hasPrefix("[") {
            return try parseArray(trimmed)
        }
        var categories: [ExploreCategory] = []
        for entry in splitEntries(trimmed) {
            // Legado splits on every "::" and takes the first two parts.
            let parts = entry.components(separatedBy: "::")
            let title = parts[0].trimmingASCIIWhitespace()
            let url = parts.count > 1 ? parts[1].trimmingASCIIWhitespace() : ""
            if title.isEmpty && url.isEmpty { continue }
            categories.append(ExploreCategory(title: title, url: url.isEmpty ? nil : url))
        }
        return categories
    }

    /// The entries of the text form: separated by runs of `&&` and line breaks.
    static func splitEntries(_ text: String) -> [String] {
        var entries: [String] = []
        var current = ""
        var rest = Substring(text)
        while let first = rest.first {
            if first == "\n" || first == "\r" || first == "\r\n" {
                entries.append(current)
                current = ""
                rest = rest.dropFirst()
            } else if rest.hasPrefix("&&") {
                entries.append(current)
                current = ""
                rest = rest.dropFirst(2)
            } else {
                current.append(first)
                rest = rest.dropFirst()
            }
        }
        entries.append(current)
        return entries
    }

    private static func parseArray(_ text: String) throws(ExploreError) -> [ExploreCategory] {
        let root: JSONNode
        do {
            root = try JSONParser.parse(text, lenient: true)
        } catch {
            throw ExploreError.malformed(reason: "not a valid JSON array of categories: \(error)")
        }
        guard case .array(let items) = root.value else {
            throw ExploreError.malformed(reason: "expected a JSON array of categories, found \(root.value.typeName)")
        }
        var categories: [ExploreCategory] = []
        for (index, item) in items.enumerated() {
            switch item.value {
            case .null:
                continue
            case .object(let object):
                let title = object["title"].flatMap(Self.text) ?? ""
                let url = object["url"].flatMap(Self.text).map { $0.trimmingASCIIWhitespace() } ?? ""
                if title.isEmpty && url.isEmpty { continue }
                categories.append(ExploreCategory(title: title, url: url.isEmpty ? nil : url))
            default:
                throw ExploreError.malformed(reason: "entry \(index + 1) is \(item.value.typeName), not an object with title and url")
            }
        }
        return categories
    }

    private static func text(_ node: JSONNode) -> String? {
        switch node.value {
        case .string(let value): return value
        case .number(let literal): return literal
        default: return nil
        }
    }

    /// The category `name` picks among `categories`: the first whose title is `name`, else one whose URL is
    /// `name`; a `name` that is a URL (absolute, or starting with `/`) and no category's is taken as a URL of
    /// its own, so any page of the site can be explored.
    public static func pick(_ name: String, in categories: [ExploreCategory]) throws(ExploreError) -> ExploreCategory {
        let wanted = name.trimmingASCIIWhitespace()
        if let match = categories.first(where: { !$0.isHeader && $0.title == wanted })
            ?? categories.first(where: { $0.url == wanted }) {
            return match
        }
        let lower = wanted.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || wanted.hasPrefix("/") {
            return ExploreCategory(title: wanted, url: wanted)
        }
        throw ExploreError.unknownCategory(wanted, known: categories.filter { !$0.isHeader }.map(\.title))
    }
}

/// Why a source's explore categories could not be read or picked.
public enum ExploreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text (as written, or as its script gave it) is in neither of Legado's forms.
    case malformed(reason: String)
    /// No category has this title or URL, and it is not a URL.
    case unknownCategory(String, known: [String])

    /// The reason alone, without the field's name.
    public var reason: String {
        switch self {
        case .malformed(let reason): return reason
        case .unknownCategory: return description
        }
    }

    public var description: String {
        switch self {
        case .malformed(let reason):
            return "exploreUrl: \(reason)"
        case .unknownCategory(let name, let known):
            let list = known.prefix(20).map { "\"\($0)\"" }.joined(separator: ", ")
            return "no explore category is called \"\(name)\"" + (known.isEmpty ? "" : "; the source has: \(list)")
                + (known.count > 20 ? ", …" : "")
        }
    }
}
