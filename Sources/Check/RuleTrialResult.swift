/// What `RuleTrial` found; `bookrule try --json` prints it.
public struct RuleTrialResult: Sendable, Codable, Equatable {
    /// The page the rule ran on.
    public struct Page: Sendable, Codable, Equatable {
        /// Its URL (links resolve against it).
        public var url: String
        /// How its bytes were decoded, e.g. `GB18030 (<meta> tag: gbk)`.
        public var charset: String
        /// The size of the decoded page in UTF-8 bytes.
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
        /// The nodes the rule matched inside it (nil when the rule yields text, not nodes).
        public var matches: [Match]?
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
    /// The nodes the rule matched on the page (without a list rule; nil when it yields text, not nodes).
    public var matches: [Match]?
    /// Every value, cleaned as the engine cleans field values (markup read, paragraphs trimmed).
    public var values: [String]
    /// The list's elements (up to the trial's limit), with a list rule.
    public var elements: [Element]?
    /// What the author should know: a misread rule, a charset overruled, an anti-bot page, empty elements.
    public var warnings: [String]
    /// Time to parse the rules and run them, in milliseconds.
    public var milliseconds: Double
}
