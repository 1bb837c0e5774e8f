import Foundation
import BookRuleJSON
import BookRuleLocking
import BookRuleCrypto

/// Decodes web fonts that draw other characters than a page's text holds (qidian's Private Use Area code points,
/// bilinovel's shuffled ones): every glyph the text uses is drawn and recognised against reference glyphs drawn
/// from installed CJK fonts, so a font nobody has seen before, re-drawn or in another face, still reads.
///
/// One decoder serves a whole process (`shared`): the reference index is built or loaded once, and each font's
/// decoding is cached by the font's content hash, in memory and in the cache directory, so the next chapter
/// with the same font costs nothing. Thread-safe; decodings run in parallel, FreeType state is per call.
public final class FontDecoder: Sendable {
    /// The process's decoder: references from `ReferenceFont.installed()`, cached under
    /// `$XDG_CACHE_HOME/bookrule/fonts` (or `~/.cache/bookrule/fonts`).
    public static let shared = FontDecoder()

    /// Where the reference index and decoded maps are kept; nil keeps them in memory only.
    public let cacheDirectory: String?
    public let referenceFonts: [ReferenceFont]
    public let limits: FontLimits

    private struct State {
        var index: ReferenceIndex?
        var indexError: FontError?
        var decoded: [String: [UInt32: DecodedGlyph]] = [:]

        /// Keeps a font's map in memory, at most `keptFonts` of them (a site with a font per chapter would
        /// otherwise grow this for every chapter of a book; the disk cache still has them all).
        mutating func keep(_ glyphs: [UInt32: DecodedGlyph], for hash: String) {
            if decoded[hash] == nil, decoded.count >= FontDecoder.keptFonts, let any = decoded.keys.first {
                decoded.removeValue(forKey: any)
            }
            decoded[hash] = glyphs
        }
    }
    static let keptFonts = 256
    private let state = Locked(State())
    /// Decoded maps saved by this decoder since the cache folder was last pruned (`FontCachePruning`).
    private let savesSincePruning = Locked(Int.max)
    /// Held while the index is built, so two first decodings build it once.
    private let building = Locked(())

    public init(cacheDirectory: String? = FontDecoder.defaultCacheDirectory(),
                referenceFonts: [ReferenceFont] = ReferenceFont.installed(), limits: FontLimits = .standard) {
        self.cacheDirectory = cacheDirectory
        self.referenceFonts = referenceFonts
        self.limits = limits
    }

    /// `$XDG_CACHE_HOME/bookrule/fonts`, else `$HOME/.cache/bookrule/fonts`; nil with neither.
    public static func defaultCacheDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") { return cache + "/bookrule/fonts" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/bookrule/fonts" }
        return nil
    }

    /// Whether reference fonts are installed (without them nothing can be recognised).
    public var canRecognise: Bool { !referenceFonts.isEmpty }

    /// Decodes the code points of `characters` (every code point the font maps, up to the limit, when nil) that
    /// the font in `bytes` draws.
    public func decode(_ bytes: [UInt8], characters: Set<UInt32>? = nil) throws(FontError) -> FontDecoding {
        guard bytes.count <= limits.maxBytes else { throw .tooLarge(bytes: bytes.count, limit: limits.maxBytes) }
        let hash = Self.sha256(bytes)
        var known = state.withLock { $0.decoded[hash] } ?? loadDecoded(hash) ?? [:]
        let library = try FreeTypeLibrary()
        let face = try FontFace(bytes: bytes, limits: limits, library: library)
        var wanted: [(scalar: UInt32, glyph: UInt32)]
        if let characters {
            wanted = characters.sorted().compactMap { scalar in face.glyphIndex(for: scalar).map { (scalar, $0) } }
        } else {
            wanted = face.characterMap(limit: limits.maxGlyphs)
        }
        wanted.removeAll { known[$0.scalar] != nil }
        var unreached = max(0, wanted.count - limits.maxDecodedGlyphs)
        wanted = Array(wanted.prefix(limits.maxDecodedGlyphs))
        if !wanted.isEmpty {
            let index = try referenceIndex()
            let (found, late) = recognise(wanted, face: face, index: index)
            unreached += late
            known.merge(found) { _, new in new }
            let merged = known
            state.withLock { $0.keep(merged, for: hash) }
            saveDecoded(hash, merged)
        }
        let mapped = characters.map { wantedSet in known.filter { wantedSet.contains($0.key) } } ?? known
        return FontDecoding(fontHash: hash, glyphs: mapped, unreached: unreached)
    }

    /// Recognises `wanted` (code point, glyph) pairs of `face`, in parallel on two threads; glyphs not reached
    /// in the time limit are counted, not decoded.
    private func recognise(_ wanted: [(scalar: UInt32, glyph: UInt32)], face: FontFace,
                           index: ReferenceIndex) -> (found: [UInt32: DecodedGlyph], unreached: Int) {
        let deadline = ContinuousClock.now + limits.timeLimit
        // Drawing uses the face (one thread); ranking, the costly part, runs on every processor.
        struct Drawn {
            var scalar: UInt32
            var glyph: UInt32
            var image: GlyphImage?
            var features: GlyphFeatures?
            var exact: Int32?
            var blank = false
        }
        var drawn: [Drawn] = []
        var unreached = 0
        for (scalar, glyph) in wanted {
            if ContinuousClock.now > deadline {
                unreached += 1
                continue
            }
            switch face.drawing(of: glyph) {
            case .failed:
                unreached += 1
            case .blank:
                drawn.append(Drawn(scalar: scalar, glyph: glyph, image: nil, features: nil, exact: nil, blank: true))
            case .image(let image):
                let exact = face.outline(of: glyph).flatMap { index.exact[OutlineFingerprint.of($0, unitsPerEm: face.unitsPerEm)] }
                drawn.append(Drawn(scalar: scalar, glyph: glyph, image: image, features: GlyphFeatures(image), exact: exact))
            }
        }
        let rankings = Locked([[GlyphRecognizer.Candidate]?](repeating: nil, count: drawn.count))
        let snapshot = drawn
        let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4, drawn.count))
        let fonts = referenceFonts
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            let recognizer = GlyphRecognizer(index: index, fonts: fonts)
            var position = worker
            while position < snapshot.count {
                let item = snapshot[position]
                if ContinuousClock.now <= deadline, let image = item.image, let features = item.features, item.exact == nil {
                    let ranking = recognizer.rank(image, features: features, codePoint: item.scalar)
                    rankings.withLock { $0[position] = ranking }
                }
                position += workers
            }
        }
        var rankingList = rankings.withLock { $0 }
        var found: [UInt32: DecodedGlyph] = [:]
        for (position, item) in drawn.enumerated() {
            if let exact = item.exact {
                found[item.scalar] = DecodedGlyph(scalar: index.scalars[Int(exact)], score: 1, margin: 1, runnerUp: nil, exact: true)
            } else if item.blank {
                // No ink: the glyph is a space, whatever code point the page used for it.
                let scalar = Unicode.Scalar(item.scalar).map { $0.properties.isWhitespace } == true ? item.scalar : 0x20
                found[item.scalar] = DecodedGlyph(scalar: scalar, score: 1, margin: 1, runnerUp: nil, exact: true)
            } else if rankingList[position] == nil {
                unreached += 1
            }
        }
        Self.resolveConflicts(&rankingList, drawn: drawn.map { ($0.glyph, $0.features) })
        for (position, item) in drawn.enumerated() {
            guard let ranking = rankingList[position], let first = ranking.first else { continue }
            let second = ranking.dropFirst().first
            found[item.scalar] = DecodedGlyph(scalar: first.scalar, score: first.score,
                                              margin: first.score - (second?.score ?? 0), runnerUp: second?.scalar,
                                              exact: false)
        }
        return (found, unreached)
    }

    /// A font draws each character once: when two different glyphs are read as the same character, the one
    /// that fits it worse moves to its next choice, if that choice is close (within `conflictReach`).
    static let conflictReach: Float = 0.05
    private static func resolveConflicts(_ rankings: inout [[GlyphRecognizer.Candidate]?],
                                         drawn: [(glyph: UInt32, features: GlyphFeatures?)]) {
        for _ in 0..<4 {
            var owners: [UInt32: [Int]] = [:]
            for (position, ranking) in rankings.enumerated() {
                if let first = ranking?.first { owners[first.scalar, default: []].append(position) }
            }
            var changed = false
            for (_, positions) in owners where positions.count > 1 {
                // Glyphs that are the same glyph, or look the same, may both be that character.
                let distinct = Set(positions.map { drawn[$0].glyph })
                guard distinct.count > 1 else { continue }
                let ordered = positions.sorted { (rankings[$0]?.first?.score ?? 0) > (rankings[$1]?.first?.score ?? 0) }
                guard let winner = ordered.first else { continue }
                for loser in ordered.dropFirst() where drawn[loser].glyph != drawn[winner].glyph {
                    if let a = drawn[loser].features, let b = drawn[winner].features,
                       GlyphFeatures.similarity(a.fine, b.fine) > 0.97 {
                        continue
                    }
                    guard var ranking = rankings[loser], ranking.count > 1,
                          ranking[0].score - ranking[1].score < conflictReach else { continue }
                    ranking.removeFirst()
                    rankings[loser] = ranking
                    changed = true
                }
            }
            if !changed { return }
        }
    }

    // MARK: - The reference index

    /// The index, loaded from the cache or built (and saved) at the first call.
    func referenceIndex() throws(FontError) -> ReferenceIndex {
        if let index = state.withLock({ $0.index }) { return index }
        return try building.withLock { _ throws(FontError) -> ReferenceIndex in
            if let index = state.withLock({ $0.index }) { return index }
            if let error = state.withLock({ $0.indexError }) { throw error }
            guard !referenceFonts.isEmpty else {
                throw FontError.noReferenceFonts(searched: ReferenceFont.notoCJK.map(\.path))
            }
            let path = cacheDirectory.map { $0 + "/references-v\(ReferenceIndex.formatVersion).bin" }
            if let path, let index = ReferenceIndex.load(path: path, fonts: referenceFonts) {
                state.withLock { $0.index = index }
                return index
            }
            do throws(FontError) {
                let index = try ReferenceIndex.build(fonts: referenceFonts)
                if let path, let cacheDirectory {
                    try? index.save(path: path, fonts: referenceFonts)
                    FontCachePruning.removeOtherIndexes(in: cacheDirectory, current: (path as NSString).lastPathComponent)
                }
                state.withLock { $0.index = index }
                return index
            } catch {
                state.withLock { $0.indexError = error }
                throw error
            }
        }
    }

    // MARK: - Decoded maps on disk

    private func decodedPath(_ hash: String) -> String? {
        cacheDirectory.map { $0 + "/decoded/\(hash).json" }
    }

    private func loadDecoded(_ hash: String) -> [UInt32: DecodedGlyph]? {
        guard let path = decodedPath(hash), let bytes = try? LocalFile.read(path),
              let entries = try? JSONDecoder().decode([String: DecodedGlyph].self, from: Data(bytes)) else { return nil }
        FontCachePruning.touch(path)
        var glyphs: [UInt32: DecodedGlyph] = [:]
        for (key, glyph) in entries {
            guard let scalar = UInt32(key, radix: 16), Unicode.Scalar(glyph.scalar) != nil else { return nil }
            glyphs[scalar] = glyph
        }
        state.withLock { $0.keep(glyphs, for: hash) }
        return glyphs
    }

    private func saveDecoded(_ hash: String, _ glyphs: [UInt32: DecodedGlyph]) {
        guard let path = decodedPath(hash) else { return }
        let entries = Dictionary(uniqueKeysWithValues: glyphs.map { (String($0.key, radix: 16, uppercase: true), $0.value) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(entries) else { return }
        let folder = (path as NSString).deletingLastPathComponent
        try? LocalFile.makeDirectories(folder)
        try? LocalFile.writeAtomically(Array(data), to: path)
        // Pruned at the first save of a process and every 200th after: listing the folder at every chapter of
        // a site with a font per chapter would cost more than the decoding it saves.
        let due = savesSincePruning.withLock { count -> Bool in
            count = count >= 200 ? 0 : count + 1
            return count == 0
        }
        if due { FontCachePruning.pruneDecoded(in: folder) }
    }

    /// SHA-256 of `bytes`, in lower-case hex.
    static func sha256(_ bytes: [UInt8]) -> String {
        HexEncoding.lowercase(MessageDigest.hash(bytes, algorithm: .sha256))
    }
}

extension FontDecoder {
    /// Loads or builds the reference index now (the first decoding does it otherwise), so its cost is paid
    /// before a timed run or a batch.
    public func prepare() throws(FontError) {
        _ = try referenceIndex()
    }

    /// Uses `other`'s reference index, already prepared, instead of loading one (benchmarks and tests that want
    /// a decoder with an empty decoded-map cache but not the index's cost again).
    public func adoptReferences(from other: FontDecoder) {
        let index = other.state.withLock { $0.index }
        state.withLock { $0.index = index }
    }
}

extension FontDecoder {
    /// Draws every glyph the font in `bytes` maps (at most `limits.maxDecodedGlyphs`) and computes its features,
    /// as a decoding does before it compares: for the fuzz target, which needs no reference index. Returns how
    /// many glyphs had ink, or nil when the font cannot be read.
    package static func drawMappedGlyphs(_ bytes: [UInt8], limits: FontLimits) -> Int? {
        guard let library = try? FreeTypeLibrary(),
              let face = try? FontFace(bytes: bytes, limits: limits, library: library) else { return nil }
        var inked = 0
        for (_, glyph) in face.characterMap(limit: limits.maxDecodedGlyphs) {
            if case .image(let image) = face.drawing(of: glyph) {
                _ = GlyphFeatures(image)
                _ = GlyphFeatures.detail(image)
                inked += 1
            }
            _ = face.outline(of: glyph)
        }
        return inked
    }
}
