/// One book found by a `MultiSourceSearch`, with every source that has it.
public struct FoundBook: Sendable, Codable, Equatable {
    /// A source's copy of the book.
    public struct Copy: Sendable, Codable, Equatable {
        /// The source's name.
        public var sourceName: String
        /// The source's URL (what `--source-name` and the library know it by).
        public var sourceURL: String
        /// The book's page on that source.
        public var bookURL: String
        /// The newest chapter the source lists ("" when its search page does not say).
        public var lastChapter: String
        /// `@put` variables of the result, carried on to the book page.
        public var variables: [String: String]
    }

    /// The name as the first source wrote it.
    public var name: String
    /// The author as the first source that gave one wrote it.
    public var author: String
    /// The normalised name and author the copies share.
    public var identity: BookIdentity
    /// Every source's copy, in the order they answered.
    public var copies: [Copy]
}
