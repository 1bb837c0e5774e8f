/// Rules that are valid in the dialect Legado reads them in, but almost certainly mean something else: XPath
/// written without the leading `/` that makes it XPath, so it runs as a JSoup segment or a JSONPath key and
/// silently matches nothing. `lint` and `bookrule test` warn with the spelling that means what was written.
public enum RuleMisreading {
    /// A warning for `text` as a rule of `kind`, or nil when it reads as its author probably meant.
    public static func warning(for text: String, kind: RuleKind) -> String? {
        // A field of an AllInOne (`:regex`) list is a template over the match's groups (`$1`, `$2`): nothing in
        // it is read as JSoup, so nothing is misread.
        guard kind != .groupField else { return nil }
        var rule = text.trimmingASCIIWhitespace()
        // A list rule's leading `-` (reverse) or `+` is its order, not part of the path (`-//ul/li` is XPath).
        if kind == .list, rule.hasPrefix("-") || rule.hasPrefix("+") { rule = String(rule.dropFirst()).trimmingASCIIWhitespace() }
        guard !rule.isEmpty, RuleParser.dialect(of: rule, kind: kind) == .jsoup, !rule.hasPrefix("@@"),
              !rule.contains("{{"), !RuleParser.isJavaScript(rule) else { return nil }
        // The rule part only: a `##` clean-up or a combinator after it does not change how the path reads.
        let path = rule.components(separatedBy: "##")[0].components(separatedBy: "&&")[0]
            .components(separatedBy: "||")[0].trimmingASCIIWhitespace()
        let looksLikeXPath = path.hasPrefix("./") || path.hasPrefix("(") || path.hasPrefix("..")
            || path.contains("/@") || path.hasSuffix("text()") || path.contains("[@")
        guard looksLikeXPath else { return nil }
        let suggestion = path.hasPrefix("(") || path.hasPrefix("./") || path.hasPrefix("..") ? "@XPath:\(path)" : "//\(path)"
        return "\"\(path)\" is read as a JSoup rule (Legado's default, since it does not start with / or a prefix), "
            + "where it matches nothing; as XPath it is \"\(suggestion)\""
    }

    /// A warning for a `replaceRegex` written without the `##` Legado's clean-up rules start with: such a value
    /// is read as a rule, not a regex, and usually empties the chapter.
    public static func replaceRegexWarning(for text: String) -> String? {
        let rule = text.trimmingASCIIWhitespace()
        guard !rule.isEmpty, !rule.hasPrefix("##"), !RuleParser.isJavaScript(rule), !rule.hasPrefix("@") else { return nil }
        return "replaceRegex \"\(rule)\" does not start with ##, so it is read as a rule on the chapter text, not as a regex to delete; write \"##\(rule)\""
    }
}
