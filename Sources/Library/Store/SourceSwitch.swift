/// What `LibraryStore.switchSource` did, or would do: the alignment of the new TOC with the saved chapters.
public struct SourceSwitch: Sendable, Equatable {
    /// The saved chapters' titles, in library order (what `alignment.matches[].saved` indexes).
    public var savedTitles: [String]
    /// The new TOC's titles (what `alignment.matches[].incoming` and `alignment.new` index).
    public var incomingTitles: [String]
    /// How they pair.
    public var alignment: ChapterAlignment
    /// Saved chapters with text among the matched ones: they keep it.
    public var textsKept: Int
    /// Saved chapters with text that nothing in the new TOC matches: kept, no longer listed.
    public var textsUnlisted: Int
}
