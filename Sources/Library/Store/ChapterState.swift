/// Where a chapter stands.
public enum ChapterState: String, Sendable, Codable, Hashable, CaseIterable {
    /// Listed, never fetched.
    case pending
    /// Saved with its text.
    case done
    /// Tried and failed; the last error is kept and a rerun retries it.
    case failed
}
