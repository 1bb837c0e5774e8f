/// The rule fields bookrule reads from each section of a source, and whether each yields a list.
public enum RuleField: String, Sendable, CaseIterable {
    // ruleSearch
    case bookList, name, author, intro, kind, lastChapter, updateTime, bookUrl, coverUrl, wordCount
    // ruleBookInfo
    case initRule = "init", tocUrl
    // ruleToc
    case chapterList, chapterName, chapterUrl, nextTocUrl, isVolume, isVip, isPay
    // ruleContent
    case content, title, nextContentUrl, replaceRegex

    /// Whether the rule selects elements for the section's other fields.
    public var isList: Bool {
        self == .bookList || self == .chapterList || self == .initRule
    }
}

/// The four rule sections of a source.
public enum RuleSectionName: String, Sendable, CaseIterable {
    case ruleSearch, ruleBookInfo, ruleToc, ruleContent

    /// The fields bookrule runs in this section, list rule first.
    public var fields: [RuleField] {
        switch self {
        case .ruleSearch:
            return [.bookList, .name, .author, .intro, .kind, .lastChapter, .updateTime, .bookUrl, .coverUrl, .wordCount]
        case .ruleBookInfo:
            return [.initRule, .name, .author, .intro, .kind, .lastChapter, .updateTime, .coverUrl, .tocUrl, .wordCount]
        case .ruleToc:
            return [.chapterList, .chapterName, .chapterUrl, .nextTocUrl, .isVolume, .isVip, .isPay, .updateTime]
        case .ruleContent:
            return [.content, .title, .nextContentUrl, .replaceRegex]
        }
    }
}
