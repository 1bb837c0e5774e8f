/// What `LibraryStore.mergeTOC` did.
public struct TOCMerge: Sendable, Equatable, Codable {
    /// Chapters new in the TOC, stored as pending.
    public var added: Int
    /// Chapters already stored and still listed (state and text kept).
    public var kept: Int
    /// Stored chapters the TOC no longer lists (kept, marked not in the TOC).
    public var missingFromTOC: Int
    /// Entries ignored because an earlier entry had the same key.
    public var duplicatesIgnored: Int
}
