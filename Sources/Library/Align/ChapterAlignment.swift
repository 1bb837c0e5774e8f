/// Which saved chapter each entry of another source's TOC is, by `ChapterTitle` with position as the
/// tie-breaker: what `switch`, fallback and mirror fetching rely on before they touch saved text.
///
/// Two passes. First, equal normalised titles (number and words) are paired; a title listed several times on
/// a side is paired in order, occurrence by occurrence. Then, among what is left, equal chapter numbers are
/// paired the same way (the words differ: "第12章 风起" and "第十二章 风起（求月票）"). Only the first pass is
/// `certain`, and only where the title occurs as often on both sides; a match by number, or a title occurring
/// a different number of times on each side, is reported but must not be trusted with text.
public struct ChapterAlignment: Sendable, Equatable {
    /// How sure a match is.
    public enum Confidence: String, Sendable, Codable, Equatable {
        /// Same normalised title, occurring as often on both sides.
        case title
        /// Same normalised title, but a different number of times on each side: paired by position.
        case position
        /// Same chapter number, different words.
        case number
    }

    /// A saved chapter and the incoming entry that is the same chapter.
    public struct Match: Sendable, Equatable {
        /// Index into the saved titles.
        public var saved: Int
        /// Index into the incoming titles.
        public var incoming: Int
        /// How the two were paired.
        public var confidence: Confidence
        /// Whether the pair may be trusted with text (fallback, mirrors).
        public var isCertain: Bool { confidence == .title }
    }

    /// The pairs, in incoming order.
    public let matches: [Match]
    /// Incoming entries with no saved chapter (new chapters), in order.
    public let new: [Int]
    /// Saved chapters no incoming entry pairs with, in order.
    public let unmatched: [Int]

    /// Aligns `incoming` titles (another source's TOC) with `saved` ones.
    public init(saved: [String], incoming: [String]) {
        let savedTitles = saved.map(ChapterTitle.init)
        let incomingTitles = incoming.map(ChapterTitle.init)
        var savedFree = Array(repeating: true, count: saved.count)
        var incomingFree = Array(repeating: true, count: incoming.count)
        var matches: [Match] = []

        func pair<Key: Hashable>(_ key: (ChapterTitle) -> Key?, confidence: (Int, Int) -> Confidence) {
            var savedByKey: [Key: [Int]] = [:]
            for (index, title) in savedTitles.enumerated() where savedFree[index] {
                if let key = key(title) { savedByKey[key, default: []].append(index) }
            }
            var incomingByKey: [Key: [Int]] = [:]
            for (index, title) in incomingTitles.enumerated() where incomingFree[index] {
                if let key = key(title) { incomingByKey[key, default: []].append(index) }
            }
            for (key, incomingIndices) in incomingByKey {
                guard let savedIndices = savedByKey[key] else { continue }
                let sure = confidence(savedIndices.count, incomingIndices.count)
                for (savedIndex, incomingIndex) in zip(savedIndices, incomingIndices) {
                    matches.append(Match(saved: savedIndex, incoming: incomingIndex, confidence: sure))
                    savedFree[savedIndex] = false
                    incomingFree[incomingIndex] = false
                }
            }
        }
        pair({ $0.number == nil && $0.words.isEmpty ? nil : $0 }) { $0 == $1 ? .title : .position }
        pair({ $0.number }) { _, _ in .number }

        self.matches = matches.sorted { $0.incoming < $1.incoming }
        new = incomingFree.indices.filter { incomingFree[$0] }
        unmatched = savedFree.indices.filter { savedFree[$0] }
    }

    /// Matches that may be trusted with text.
    public var certain: [Match] { matches.filter(\.isCertain) }

    /// For each incoming index, its saved index when certain.
    public var certainSavedIndex: [Int: Int] {
        Dictionary(uniqueKeysWithValues: certain.map { ($0.incoming, $0.saved) })
    }
}
