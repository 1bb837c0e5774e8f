/// What `ChapterVerification` found: for each chapter of the sample, how many sources' copies were compared and
/// which source's copy looks wrong, and why.
public struct VerificationReport: Sendable, Equatable {
    /// Something wrong with one source's copy of one chapter.
    public struct Finding: Sendable, Equatable {
        /// What looks wrong.
        public enum Kind: String, Sendable, Equatable {
            /// Much shorter than the other copies, and what it has is part of theirs: cut off.
            case truncated
            /// Another text: it shares little with the copies that agree with each other (a decoy, an
            /// anti-scraping page served as content, another chapter).
            case differentText = "different text"
            /// Two copies (or more, none agreeing) differ and nothing says which one is right.
            case undecided
            /// The source did not give the chapter (an error, or no text).
            case unavailable
        }

        /// The source whose copy this is about.
        public var sourceName: String
        /// Its `bookSourceUrl`.
        public var sourceURL: String
        public var kind: Kind
        /// The copy's normalised length over the median length of the other copies (nil for `.unavailable`).
        public var lengthRatio: Double?
        /// The copy's best shingle overlap (Jaccard) with another copy (nil for `.unavailable`).
        public var overlap: Double?
        /// Why, in words (the numbers above, or the error).
        public var reason: String
    }

    /// One chapter of the sample.
    public struct Chapter: Sendable, Equatable {
        /// Its place in the book's TOC (from 0).
        public var position: Int
        public var title: String
        /// Its URL on the book's current source.
        public var url: String
        /// How many sources' copies were compared.
        public var copies: Int
        /// What looks wrong; empty when the copies agree.
        public var findings: [Finding]
    }

    /// The sources compared (their names), the book's current one first.
    public var sources: [String]
    /// A known source that could not be used.
    public struct LeftOut: Sendable, Equatable {
        public var name: String
        /// Why (its book page or TOC could not be read).
        public var reason: String
    }

    /// Known sources that could not be used.
    public var leftOut: [LeftOut]
    /// The chapters sampled, in TOC order.
    public var chapters: [Chapter]

    /// The chapters with a truncated or different copy.
    public var suspect: [Chapter] {
        chapters.filter { chapter in chapter.findings.contains { $0.kind == .truncated || $0.kind == .differentText } }
    }
}
