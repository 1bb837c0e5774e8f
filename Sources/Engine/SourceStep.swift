/// One step a source runs, and which of its problems stop it: every command reports a source's problems as
/// `lint` words them, refusing a step its problems stop and warning about the rest.
public enum SourceStep: String, Sendable, CaseIterable {
    case search = "search"
    case bookInfo = "book info"
    case toc = "TOC"
    case content = "content"
    case explore = "explore"

    /// The section whose rules the step runs.
    public var section: RuleSectionName {
        switch self {
        case .search: return .ruleSearch
        case .bookInfo: return .ruleBookInfo
        case .toc: return .ruleToc
        case .content: return .ruleContent
        case .explore: return .ruleExplore
        }
    }

    /// The fields the step cannot run without when they are broken (besides the section's list rule).
    var requiredFields: [RuleField] {
        switch self {
        case .search, .explore: return [.bookList, .name]
        case .bookInfo: return [.initRule]
        case .toc: return [.chapterList, .chapterName, .chapterUrl, .nextTocUrl, .isVolume]
        case .content: return [.content, .nextContentUrl, .replaceRegex]
        }
    }
}

extension BookSource {
    /// The problems that stop `step`: a missing or unusable `bookSourceUrl` (every relative URL resolves
    /// against it), a source that is not an object, the step's section not being an object, a broken rule
    /// the step needs, for search a broken `searchUrl` and for explore a broken `exploreUrl`. Explore reads
    /// `ruleSearch`'s rules when `ruleExplore` has no `bookList` (`exploreListSection`), and then its problems
    /// are those of `ruleSearch`. The other problems do not stop it.
    public func problems(stopping step: SourceStep) -> [SourceProblem] {
        let section = step == .explore ? exploreListSection : section(step.section)
        let required = section.name.fields.filter { step.requiredFields.contains($0) || $0 == section.name.fields.first }
        let fieldProblems = required.compactMap { section.problems[$0] }
        return problems.filter { problem in
            let field = Self.unprefixed(problem.field)
            return field == "bookSourceUrl" || field == "source" || field.isEmpty || field == section.name.rawValue
                || (step == .search && field == "searchUrl")
                || (step == .explore && field == "exploreUrl")
                || fieldProblems.contains(problem)
        }
    }

    /// Refuses the first of `steps` this source's problems stop, naming them (`EngineError.unusableRules`, as
    /// the engine refuses the step itself): a command that runs several steps says so before the first runs.
    public func requireUsable(for steps: [SourceStep]) throws(EngineError) {
        for step in steps {
            let stopping = problems(stopping: step)
            if !stopping.isEmpty { throw .unusableRules(step: step.rawValue, problems: stopping) }
        }
    }

    /// The problems that do not stop any of `steps`, for warnings.
    public func problems(notStopping steps: [SourceStep]) -> [SourceProblem] {
        let stopping = steps.flatMap { problems(stopping: $0) }
        return problems.filter { !stopping.contains($0) }
    }

    /// A field path without the `[3].` of an array file (and `[3]` alone, an element that is not an object,
    /// as "").
    private static func unprefixed(_ field: String) -> Substring {
        guard field.hasPrefix("["), let close = field.firstIndex(of: "]") else { return Substring(field) }
        let rest = field[field.index(after: close)...]
        return rest.hasPrefix(".") ? rest.dropFirst() : rest
    }
}
