/// Recognises glyphs against the reference index: a coarse pass over every reference keeps the nearest few,
/// a fine pass ranks those, and the score adds where the ink sits and how common the character is.
struct GlyphRecognizer {
    let index: ReferenceIndex

    /// How many references the coarse pass hands to the fine one.
    static let shortlist = 64
    /// How many distinct characters a ranking keeps (the alternatives a conflict falls back on).
    static let kept = 6
    /// Weight of the placement distance (in ems) against the shape's similarity (0…1).
    static let geometryWeight: Float = 0.12
    /// What a rare character or a symbol costs against a common character of the same look.
    static let rarePenalty: Float = 0.012
    static let symbolPenalty: Float = 0.03
    /// What drawing its own code point is worth (a shuffled font leaves most characters in place).
    static let identityBonus: Float = 0.006

    struct Candidate: Equatable {
        var scalar: UInt32
        var score: Float
    }

    /// The best candidates for one glyph, best first.
    func rank(_ image: GlyphImage, features: GlyphFeatures, codePoint: UInt32) -> [Candidate] {
        let entries = index.entryCount
        let coarseCount = GlyphFeatures.coarseCount
        let fineCount = GlyphFeatures.count
        // Coarse pass: the `shortlist` best entries by the 128-value features, kept in ascending order.
        var best: [(score: Float, entry: Int)] = []
        best.reserveCapacity(Self.shortlist + 1)
        features.coarse.withUnsafeBufferPointer { query in
            index.coarse.withUnsafeBufferPointer { references in
                guard let queryBase = query.baseAddress, let base = references.baseAddress else { return }
                for entry in 0..<entries {
                    let score = GlyphFeatures.similarity(queryBase, base + entry * coarseCount, count: coarseCount)
                    if best.count == Self.shortlist, score <= best[0].score { continue }
                    var position = best.count
                    while position > 0 && best[position - 1].score > score { position -= 1 }
                    best.insert((score, entry), at: position)
                    if best.count > Self.shortlist { best.removeFirst() }
                }
            }
        }
        // Fine pass over the shortlist; a character drawn by several faces keeps its best.
        var scores: [UInt32: Float] = [:]
        features.fine.withUnsafeBufferPointer { query in
            index.fine.withUnsafeBufferPointer { references in
                guard let queryBase = query.baseAddress, let base = references.baseAddress else { return }
                for (_, entry) in best {
                    var score = GlyphFeatures.similarity(queryBase, base + entry * fineCount, count: fineCount)
                    let placement = GlyphGeometry(values: index.geometry[(entry * GlyphGeometry.count)...])
                    score -= Self.geometryWeight * image.geometry.distance(to: placement)
                    let character = Int(index.entryCharacter[entry])
                    switch index.commonness[character] {
                    case .common: break
                    case .rare: score -= Self.rarePenalty
                    case .symbol: score -= Self.symbolPenalty
                    }
                    let scalar = index.scalars[character]
                    if scalar == codePoint { score += Self.identityBonus }
                    if score > scores[scalar] ?? -.infinity { scores[scalar] = score }
                }
            }
        }
        return scores.map { Candidate(scalar: $0.key, score: $0.value) }
            .sorted { $0.score > $1.score || ($0.score == $1.score && $0.scalar < $1.scalar) }
            .prefix(Self.kept).map { $0 }
    }
}
