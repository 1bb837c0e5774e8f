import CGlyphKernels
/// Recognises glyphs against the reference index in three passes: a coarse one over every reference keeps the
/// nearest `shortlist`, a fine one ranks those, and a detailed one (the references drawn again, at a finer
/// pooling) decides between the last few. Every pass adds where the ink sits and how common the character is.
///
/// One per worker thread: it opens the reference fonts for the detailed pass itself (FreeType state is never
/// shared between threads) and keeps the detailed features it drew.
final class GlyphRecognizer {
    let index: ReferenceIndex
    private let library: FreeTypeLibrary?
    private let faces: [FontFace?]
    private var details: [Int: [Float]] = [:]

    /// How many references the coarse pass hands to the fine one.
    static let shortlist = 96
    /// How many distinct characters the detailed pass compares (and a ranking keeps for conflicts).
    static let kept = 6
    /// Weight of the placement distance (in ems) against the shape's similarity (0…1).
    static let geometryWeight: Float = 0.12
    /// What each em of difference in advance width costs besides: half-width and full-width forms share a
    /// shape and differ in width.
    static let advanceWeight: Float = 0.12
    /// What a rare character or a symbol costs against a common character of the same look.
    static let rarePenalty: Float = 0.012
    static let symbolPenalty: Float = 0.06
    /// What drawing its own code point is worth (a shuffled font leaves most characters in place).
    static let identityBonus: Float = 0.006
    /// The detailed pass's share of the final score.
    static let detailShare: Float = 0.3

    struct Candidate: Equatable {
        var scalar: UInt32
        var score: Float
    }

    init(index: ReferenceIndex, fonts: [ReferenceFont]) {
        self.index = index
        let library = try? FreeTypeLibrary()
        self.library = library
        faces = fonts.map { font in library.flatMap { try? ReferenceIndex.openFace(font, library: $0) } }
    }

    /// The placement and commonness part of an entry's score.
    private func penalty(_ entry: Int, _ geometry: GlyphGeometry, codePoint: UInt32) -> Float {
        let placement = GlyphGeometry(values: index.geometry[(entry * GlyphGeometry.count)...])
        var penalty = Self.geometryWeight * geometry.distance(to: placement)
            + Self.advanceWeight * abs(geometry.advance - placement.advance)
        let character = Int(index.entryCharacter[entry])
        switch index.commonness[character] {
        case .common: break
        case .rare: penalty += Self.rarePenalty
        case .symbol: penalty += Self.symbolPenalty
        case .rareSymbol: penalty += 2 * Self.symbolPenalty
        }
        if index.scalars[character] == codePoint { penalty -= Self.identityBonus }
        return penalty
    }

    /// The best candidates for one glyph, best first.
    func rank(_ image: GlyphImage, features: GlyphFeatures, codePoint: UInt32) -> [Candidate] {
        let entries = index.entryCount
        let coarseCount = GlyphFeatures.coarseCount
        let fineCount = GlyphFeatures.count
        // Coarse pass (in C: see `CGlyphKernels`): every entry's score, then the `shortlist` best, kept in
        // ascending order.
        var scores = [Float](repeating: -.infinity, count: entries)
        let own = image.geometry.values
        features.coarse.withUnsafeBufferPointer { query in
            index.coarse.withUnsafeBufferPointer { references in
                index.geometry.withUnsafeBufferPointer { geometry in
                    own.withUnsafeBufferPointer { own in
                        scores.withUnsafeMutableBufferPointer { scores in
                            guard let query = query.baseAddress, let references = references.baseAddress,
                                  let geometry = geometry.baseAddress, let own = own.baseAddress,
                                  let scores = scores.baseAddress, index.coarse.count == entries * coarseCount,
                                  index.geometry.count == entries * GlyphGeometry.count else { return }
                            bookrule_glyph_coarse_scores(query, references, entries, coarseCount, geometry, own,
                                                         Self.geometryWeight, scores)
                        }
                    }
                }
            }
        }
        var best: [(score: Float, entry: Int)] = []
        best.reserveCapacity(Self.shortlist + 1)
        scores.withUnsafeBufferPointer { scores in
            var threshold = -Float.infinity
            for entry in 0..<scores.count {
                let score = scores[entry]
                if best.count == Self.shortlist, score <= threshold { continue }
                var position = best.count
                while position > 0 && best[position - 1].score > score { position -= 1 }
                best.insert((score, entry), at: position)
                if best.count > Self.shortlist { best.removeFirst() }
                if best.count == Self.shortlist { threshold = best[0].score }
            }
        }
        // Fine pass over the shortlist; a character drawn by several faces keeps its best entry.
        var fine: [UInt32: (score: Float, entry: Int)] = [:]
        features.fine.withUnsafeBufferPointer { query in
            index.fine.withUnsafeBufferPointer { references in
                guard let queryBase = query.baseAddress, let base = references.baseAddress else { return }
                for (_, entry) in best {
                    let score = GlyphFeatures.similarity(queryBase, base + entry * fineCount, count: fineCount)
                    let scalar = index.scalars[Int(index.entryCharacter[entry])]
                    if score > fine[scalar]?.score ?? -.infinity { fine[scalar] = (score, entry) }
                }
            }
        }
        let ranked = fine.map { (scalar: $0.key, score: $0.value.score - penalty($0.value.entry, image.geometry, codePoint: codePoint),
                                 shape: $0.value.score, entry: $0.value.entry) }
            .sorted { $0.score > $1.score || ($0.score == $1.score && $0.scalar < $1.scalar) }
            .prefix(Self.kept)
        // Detailed pass over the last few.
        let detail = GlyphFeatures.detail(image)
        return ranked.map { candidate -> Candidate in
            guard let reference = detailFeatures(of: candidate.entry) else {
                return Candidate(scalar: candidate.scalar, score: candidate.score)
            }
            let shape = (1 - Self.detailShare) * candidate.shape + Self.detailShare * GlyphFeatures.similarity(detail, reference)
            return Candidate(scalar: candidate.scalar, score: shape - penalty(candidate.entry, image.geometry, codePoint: codePoint))
        }.sorted { $0.score > $1.score || ($0.score == $1.score && $0.scalar < $1.scalar) }
    }

    /// The detailed features of a reference entry, drawn from its face the first time.
    private func detailFeatures(of entry: Int) -> [Float]? {
        if let known = details[entry] { return known }
        let faceIndex = Int(index.entryFace[entry])
        guard faceIndex < faces.count, let face = faces[faceIndex],
              let image = face.image(of: index.entryGlyph[entry]) else { return nil }
        let features = GlyphFeatures.detail(image)
        details[entry] = features
        return features
    }
}
