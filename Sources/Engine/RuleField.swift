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

    /// A dense number for table lookups: a dictionary keyed by a String-backed enum hashes the string, which
    /// showed up when reading every field of 5,000 chapters.
    var ordinal: Int {
        switch self {
        case .bookList: return 0
        case .name: return 1
        case .author: return 2
        case .intro: return 3
        case .kind: return 4
        case .lastChapter: return 5
        case .updateTime: return 6
        case .bookUrl: return 7
        case .coverUrl: return 8
        case .wordCount: return 9
        case .initRule: return 10
        case .tocUrl: return 11
        case .chapterList: return 12
        case .chapterName: return 13
        case .chapterUrl: return 14
        case .nextTocUrl: return 15
        case .isVolume: return 16
        case .isVip: return 17
        case .isPay: return 18
        case .content: return 19
        case .title: return 20
        case .nextContentUrl: return 21
        case .replaceRegex: return 22
        }
    }

    /// Whether the rule selects elements for the section's other fields.
    public var isList: Bool {
        self == .bookList || self == .chapterList || self == .initRule
    }
}

/// The rule sections of a source: the four of the reading chain, and `ruleExplore` (browsing categories).
public enum RuleSectionName: String, Sendable, CaseIterable {
    case ruleSearch, ruleBookInfo, ruleToc, ruleContent, ruleExplore

    /// The fields bookrule runs in this section, list rule first.
    public var fields: [RuleField] {
        switch self {
        case .ruleSearch, .ruleExplore:
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
