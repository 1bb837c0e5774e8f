/// What `LegadoWebDAV.restore` did.
public struct WebDAVRestoreReport: Sendable {
    /// The backup restored.
    public var name: String
    /// The library's part: books added, updated and left out, sources, progress taken.
    public var summary: LibraryRestoreSummary
    /// Books whose progress came from a `bookProgress/` file further than the backup's.
    public var progressFromFiles: Int
    /// Replace rules in the backup that bookrule runs.
    public var replaceRules: Int
    /// Of those, rules the library did not have.
    public var replaceRulesAdded: Int
    /// Rules left out, and why.
    public var warnings: [String]
    /// Files kept unchanged for the next backup (`bookmark.json`, `readRecord.json`, …).
    public var keptFiles: [String]
}
