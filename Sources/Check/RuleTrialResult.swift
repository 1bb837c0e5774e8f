/// What `RuleTrial` found; `bookrule try --json` prints it.
public struct RuleTrialResult: Sendable, Codable, Equatable {
    /// The page the rule ran on.
    public struct Page: Sendable, Codable, Equatable {
        /// Its URL (links resolve against it).
        public var url: String
        /// How its bytes were decoded, e.g. `GB18030 (<meta> tag: gbk)`.
        public var charset: String
        /// The size of the page as received (a saved file's size), before decoding: a 12,818-byte GBK page
        /// is 12,818, not the size of its UTF-8 text.
        public var bytes: Int
        /// The HTTP status it came with (200 for a saved page).
        public var status: Int
    }

    /// How a rule was read.
    public struct Reading: Sendable, Codable, Equatable {
        /// The rule as written.
        public var rule: String
        /// The dialect it was read as (`XPath`, `JSoup`, `CSS`, `JSONPath`, `regex`, …).
        public var dialect: String
        /// The XPath it runs as, when that differs from what was written (JSoup and CSS translations).
        public var translations: [String]
        /// Why it probably does not mean what it says (`RuleMisreading`), if it does not.
        public var warning: String?
    }

    /// One node a rule matched.
    public struct Match: Sendable, Codable, Equatable {
        /// A short path to it: `div#list > dl > dd:nth-child(3) > a`.
        public var path: String
        /// The start of its markup (or an attribute's `name="value"`, a text node's text).
        public var snippet: String
    }

    /// One element of the list rule, with what the rule found inside it.
    public struct Element: Sendable, Codable, Equatable {
        /// Its position in the list, from 1.
        public var index: Int
        /// A short path to it.
        public var path: String
        /// The start of its markup.
        public var snippet: String
        /// The nodes the rule matched inside it, up to the trial's limit (nil when the rule yields text, not nodes).
        public var matches: [Match]?
        /// How many nodes the rule matched inside it (all of them).
        public var matchCount: Int?
        /// The rule's values inside it, cleaned.
        public var values: [String]
    }

    /// The page.
    public var page: Page
    /// How the rule was read.
    public var rule: Reading
    /// How the list rule was read, with `--list`.
    public var list: Reading?
    /// How many elements the list rule selected.
    public var listCount: Int?
    /// The nodes the rule matched on the page, up to the trial's limit (without a list rule; nil when it
    /// yields text, not nodes).
    public var matches: [Match]?
    /// How many nodes the rule matched on the page (all of them; nil as for `matches`).
    public var matchCount: Int?
    /// The values, up to the trial's limit, cleaned as the engine cleans field values (markup read,
    /// paragraphs trimmed; a link attribute's value resolved against an http(s) page URL).
    public var values: [String]
    /// How many values the rule gave (all of them).
    public var valueCount: Int
    /// Whether any value is not empty (all of them, not only those listed).
    public var hasValue: Bool
    /// The list's elements (up to the trial's limit), with a list rule.
    public var elements: [Element]?
    /// What the author should know: a misread rule, a charset overruled, an anti-bot page, empty elements.
    public var warnings: [String]
    /// Time to parse the rules and run them, in milliseconds.
    public var milliseconds: Double
}
