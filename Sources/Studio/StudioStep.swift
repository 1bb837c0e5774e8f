import BookRuleEngine

/// The four steps of a source's chain, each with the page it ran on and the section whose rules read it.
package enum StudioStep: String, Sendable, CaseIterable, Codable {
    case search, book, toc, chapter

    /// The section of the source that reads this step's page.
    package var section: RuleSectionName {
        switch self {
        case .search: return .ruleSearch
        case .book: return .ruleBookInfo
        case .toc: return .ruleToc
        case .chapter: return .ruleContent
        }
    }
}
