/// What `LibraryStore.restore` did.
public struct LibraryRestoreSummary: Sendable, Equatable {
    /// The ids of the books added to the library.
    public var added: [Int64] = []
    /// Books already in the library, updated.
    public var updated = 0
    /// Names of the books left out: their source is neither in the backup nor in the library (a book Legado
    /// read from a local file has none).
    public var skipped: [String] = []
    /// Sources saved (added or replaced).
    public var sources = 0
    /// RSS sources saved (added or replaced).
    public var rssSources = 0
    /// Books whose progress was taken from the backup (it was further).
    public var progressTaken = 0

    /// An empty summary.
    public init() {}
}
