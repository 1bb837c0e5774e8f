import BookRuleJSON

/// One of Legado's replace rules (`replaceRule` JSON): text a reader wants changed in every chapter of the
/// books it applies to, such as an advertisement line deleted or a character name corrected. Rules change what
/// is shown and exported, never the text saved in the library.
public struct ReplaceRule: Sendable, Equatable, Encodable {
    /// Legado's `id` (its primary key, by default the time the rule was made, in milliseconds), kept so that the
    /// rule keeps it through `bookrule serve` and a round trip to Legado; nil for a rule written without one.
    public var id: Int?
    /// What the rule is called in lists and warnings.
    public var name: String
    /// The rule's group ("" when none).
    public var group: String
    /// The text or (with `isRegex`) the regular expression to find.
    public var pattern: String
    /// What replaces each match; with `isRegex`, Java replacement syntax (`$1`, `${name}`, `\$`).
    public var replacement: String
    /// Whether `pattern` is a regular expression (Legado's default) rather than plain text.
    public var isRegex: Bool
    /// Where the rule applies: "" for every book; otherwise it applies to a book whose name or source URL
    /// occurs in this text (several may be listed, separated by `;`, as Legado writes them).
    public var scope: String
    /// Books the rule never applies to, matched as `scope` is ("" for none).
    public var excludeScope: String
    /// Whether the rule changes chapter titles.
    public var scopeTitle: Bool
    /// Whether the rule changes chapter text (Legado's default).
    public var scopeContent: Bool
    /// Whether the rule is used at all.
    public var isEnabled: Bool
    /// Rules run in ascending order (ties keep the order they were imported in).
    public var order: Int
    /// How long one application of the rule may take before it is disabled for the run (Legado: 3000 ms).
    public var timeoutMillisecond: Int

    /// Creates a rule; the defaults are Legado's.
    public init(name: String, group: String = "", pattern: String, replacement: String = "", isRegex: Bool = true,
                scope: String = "", excludeScope: String = "", scopeTitle: Bool = false, scopeContent: Bool = true,
                isEnabled: Bool = true, order: Int = 0, timeoutMillisecond: Int = 3000, id: Int? = nil) {
        self.id = id
        self.name = name
        self.group = group
        self.pattern = pattern
        self.replacement = replacement
        self.isRegex = isRegex
        self.scope = scope
        self.excludeScope = excludeScope
        self.scopeTitle = scopeTitle
        self.scopeContent = scopeContent
        self.isEnabled = isEnabled
        self.order = order
        self.timeoutMillisecond = timeoutMillisecond
    }

    /// Which part of a chapter a rule is asked about.
    public enum Target: Sendable {
        /// The chapter's title (`scopeTitle`).
        case title
        /// The chapter's text (`scopeContent`).
        case content
    }

    /// Whether the rule, when enabled, changes `target` of a book named `bookName` from the source at
    /// `sourceURL`. As Legado's rule query does, a non-empty `scope` must contain the book name or the
    /// source URL (letters compared ignoring ASCII case, as SQLite's LIKE does), and a non-empty
    /// `excludeScope` containing either keeps the rule away.
    public func applies(to target: Target, bookName: String, sourceURL: String) -> Bool {
        guard isEnabled, target == .title ? scopeTitle : scopeContent else { return false }
        func names(_ text: String) -> Bool {
            let folded = Self.asciiLowercased(text)
            return [bookName, sourceURL].contains { !$0.isEmpty && folded.contains(Self.asciiLowercased($0)) }
        }
        if !scope.isEmpty && !names(scope) { return false }
        return excludeScope.isEmpty || !names(excludeScope)
    }

    private static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32) ?? $0 : $0
        }))
    }

    /// The rule a Legado `replaceRule` object describes; `path` names it in errors (`rules.json[3]`).
    /// Missing fields take Legado's defaults; Booleans and numbers written as strings are accepted, as Legado's
    /// lenient JSON reader accepts them.
    /// - Throws: `ReplaceRuleError.invalidRule` when `pattern` is missing or empty, or a field has the wrong type.
    public init(legado object: JSONObject, path: String) throws(ReplaceRuleError) {
        func text(_ key: String) throws(ReplaceRuleError) -> String? {
            guard let node = object[key] else { return nil }
            switch node.value {
            case .null: return nil
            case .string(let value): return value
            case .number(let literal): return literal
            default:
                throw .invalidRule(path: path, field: key, reason: "expected a string, found \(node.value.typeName)")
            }
        }
        func flag(_ key: String, _ fallback: Bool) throws(ReplaceRuleError) -> Bool {
            guard let node = object[key] else { return fallback }
            switch node.value {
            case .null: return fallback
            case .bool(let value): return value
            case .string("true"), .number("1"): return true
            case .string("false"), .number("0"): return false
            default:
                throw .invalidRule(path: path, field: key, reason: "expected true or false, found \(node.value.serialized())")
            }
        }
        func number(_ key: String) throws(ReplaceRuleError) -> Int? {
            guard let node = object[key] else { return nil }
            switch node.value {
            case .null: return nil
            case .number: if let value = node.value.intValue { return value }
            case .string(let value): if let parsed = Int(value) { return parsed }
            default: break
            }
            throw .invalidRule(path: path, field: key, reason: "expected a whole number, found \(node.value.serialized())")
        }
        guard let pattern = try text("pattern"), !pattern.isEmpty else {
            throw .invalidRule(path: path, field: "pattern", reason: "a rule needs a pattern to find")
        }
        let order = try number("order")
        let sortOrder = try number("sortOrder")
        let timeout = try number("timeoutMillisecond")
        self.init(name: try text("name") ?? pattern, group: try text("group") ?? "", pattern: pattern,
                  replacement: try text("replacement") ?? "", isRegex: try flag("isRegex", true),
                  scope: try text("scope") ?? "", excludeScope: try text("excludeScope") ?? "",
                  scopeTitle: try flag("scopeTitle", false), scopeContent: try flag("scopeContent", true),
                  isEnabled: try flag("isEnabled", true), order: order ?? sortOrder ?? 0,
                  timeoutMillisecond: max(1, timeout ?? 3000), id: try number("id"))
    }
}
