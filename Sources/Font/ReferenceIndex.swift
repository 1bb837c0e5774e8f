import Foundation
import BookRuleJSON
import BookRuleLocking

/// The reference glyphs: every candidate character drawn from every reference face, as features. Built once per
/// machine (a few seconds) and kept in the cache directory; rebuilt when a reference font file changes.
final class ReferenceIndex: Sendable {
    /// The candidate characters, and how common each is.
    let scalars: [UInt32]
    let commonness: [CandidateCharacters.Commonness]
    /// One entry per drawn (character, face): the character's index in `scalars`.
    let entryCharacter: [Int32]
    /// Each entry's face (an index into the reference fonts) and glyph, to draw it again for the detailed pass.
    let entryFace: [UInt8]
    let entryGlyph: [UInt32]
    /// `GlyphFeatures.count` values per entry.
    let fine: [Float]
    /// `GlyphFeatures.coarseCount` values per entry.
    let coarse: [Float]
    /// `GlyphGeometry.count` values per entry.
    let geometry: [Float]
    /// Outline fingerprints of every entry, for the exact fast path: a fingerprint → the character's index.
    let exact: [UInt64: Int32]

    init(scalars: [UInt32], commonness: [CandidateCharacters.Commonness], entryCharacter: [Int32], entryFace: [UInt8],
         entryGlyph: [UInt32], fine: [Float], coarse: [Float], geometry: [Float], exact: [UInt64: Int32]) {
        self.scalars = scalars
        self.commonness = commonness
        self.entryCharacter = entryCharacter
        self.entryFace = entryFace
        self.entryGlyph = entryGlyph
        self.fine = fine
        self.coarse = coarse
        self.geometry = geometry
        self.exact = exact
    }

    var entryCount: Int { entryCharacter.count }

    /// Draws the candidates from `fonts`, one thread per font.
    static func build(fonts: [ReferenceFont]) throws(FontError) -> ReferenceIndex {
        guard !fonts.isEmpty else { throw .noReferenceFonts(searched: ReferenceFont.notoCJK.map(\.path)) }
        let candidates = CandidateCharacters.gb2312()
        guard candidates.scalars.count > 7_000 else {
            throw .referenceIndex(reason: "glibc's iconv gave only \(candidates.scalars.count) GB2312 characters")
        }
        struct Drawn: Sendable {
            var entryCharacter: [Int32] = []
            var entryGlyph: [UInt32] = []
            var fine: [Float] = []
            var coarse: [Float] = []
            var geometry: [Float] = []
            var exact: [UInt64: Int32] = [:]
            var error: FontError?
        }
        let results = Locked([Drawn?](repeating: nil, count: fonts.count))
        DispatchQueue.concurrentPerform(iterations: fonts.count) { index in
            var drawn = Drawn()
            do throws(FontError) {
                let library = try FreeTypeLibrary()
                let face = try Self.openFace(fonts[index], library: library)
                drawn.fine.reserveCapacity(candidates.scalars.count * GlyphFeatures.count)
                for (characterIndex, scalar) in candidates.scalars.enumerated() {
                    guard let glyph = face.glyphIndex(for: scalar), let image = face.image(of: glyph) else { continue }
                    let features = GlyphFeatures(image)
                    drawn.entryCharacter.append(Int32(characterIndex))
                    drawn.entryGlyph.append(glyph)
                    drawn.fine += features.fine
                    drawn.coarse += features.coarse
                    drawn.geometry += image.geometry.values
                    if let outline = face.outline(of: glyph) {
                        drawn.exact[OutlineFingerprint.of(outline, unitsPerEm: face.unitsPerEm)] = Int32(characterIndex)
                    }
                }
            } catch {
                drawn.error = error
            }
            results.withLock { $0[index] = drawn }
        }
        var entryCharacter: [Int32] = []
        var entryFace: [UInt8] = []
        var entryGlyph: [UInt32] = []
        var fine: [Float] = []
        var coarse: [Float] = []
        var geometry: [Float] = []
        var exact: [UInt64: Int32] = [:]
        for (face, drawn) in results.withLock({ $0 }).enumerated() {
            guard let drawn else { continue }
            if let error = drawn.error { throw error }
            entryCharacter += drawn.entryCharacter
            entryFace += Array(repeating: UInt8(face), count: drawn.entryCharacter.count)
            entryGlyph += drawn.entryGlyph
            fine += drawn.fine
            coarse += drawn.coarse
            geometry += drawn.geometry
            exact.merge(drawn.exact) { first, _ in first }
        }
        guard !entryCharacter.isEmpty else { throw .referenceIndex(reason: "the reference fonts draw none of the candidates") }
        return ReferenceIndex(scalars: candidates.scalars, commonness: candidates.commonness, entryCharacter: entryCharacter,
                              entryFace: entryFace, entryGlyph: entryGlyph, fine: fine, coarse: coarse, geometry: geometry,
                              exact: exact)
    }

    /// The face of `font` whose family ends with its suffix (the first face otherwise).
    static func openFace(_ font: ReferenceFont, library: FreeTypeLibrary) throws(FontError) -> FontFace {
        let first = try FontFace(path: font.path, index: 0, library: library)
        guard first.faceCount > 1, !first.familyName.hasSuffix(font.familySuffix) else { return first }
        for index in 1..<min(first.faceCount, 64) {
            let face = try FontFace(path: font.path, index: index, library: library)
            if face.familyName.hasSuffix(font.familySuffix) { return face }
        }
        return first
    }

    // MARK: - The cache file

    /// Bumped whenever features, candidates or the file layout change, so an old cache is rebuilt.
    static let formatVersion = 4

    /// What the cache was built from: the format and each reference file's path, size and modification time.
    static func stamp(of fonts: [ReferenceFont]) -> String {
        var parts = ["bookrule-glyph-references \(formatVersion) \(GlyphFeatures.count)"]
        for font in fonts {
            let attributes = try? FileManager.default.attributesOfItem(atPath: font.path)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            parts.append("\(font.path)|\(font.familySuffix)|\(size)|\(Int64(modified))")
        }
        return parts.joined(separator: "\n")
    }

    /// The index in `path` when it was built from `fonts` as they are now; nil otherwise (then it is rebuilt).
    static func load(path: String, fonts: [ReferenceFont]) -> ReferenceIndex? {
        guard let bytes = try? LocalFile.read(path) else { return nil }
        var reader = BinaryReader(bytes: bytes)
        guard let stamp = reader.string(), stamp == Self.stamp(of: fonts),
              let scalars = reader.array(UInt32.self), let commonnessBytes = reader.array(UInt8.self),
              let entryCharacter = reader.array(Int32.self), let entryFace = reader.array(UInt8.self),
              let entryGlyph = reader.array(UInt32.self), let fine = reader.array(Float.self),
              let coarse = reader.array(Float.self), let geometry = reader.array(Float.self),
              let exactKeys = reader.array(UInt64.self), let exactValues = reader.array(Int32.self), reader.atEnd,
              scalars.count == commonnessBytes.count, fine.count == entryCharacter.count * GlyphFeatures.count,
              coarse.count == entryCharacter.count * GlyphFeatures.coarseCount,
              geometry.count == entryCharacter.count * GlyphGeometry.count, exactKeys.count == exactValues.count,
              entryFace.count == entryCharacter.count, entryGlyph.count == entryCharacter.count,
              entryFace.allSatisfy({ Int($0) < fonts.count }),
              entryCharacter.allSatisfy({ $0 >= 0 && Int($0) < scalars.count }),
              exactValues.allSatisfy({ $0 >= 0 && Int($0) < scalars.count })
        else { return nil }
        let commonness = commonnessBytes.map { CandidateCharacters.Commonness(rawValue: $0) ?? .symbol }
        return ReferenceIndex(scalars: scalars, commonness: commonness, entryCharacter: entryCharacter, entryFace: entryFace,
                              entryGlyph: entryGlyph, fine: fine, coarse: coarse, geometry: geometry,
                              exact: Dictionary(zip(exactKeys, exactValues), uniquingKeysWith: { first, _ in first }))
    }

    /// Writes the index to `path` atomically (a concurrent reader sees the old file or the whole new one).
    func save(path: String, fonts: [ReferenceFont]) throws(LocalFile.Failure) {
        var writer = BinaryWriter()
        writer.string(Self.stamp(of: fonts))
        writer.array(scalars)
        writer.array(commonness.map(\.rawValue))
        writer.array(entryCharacter)
        writer.array(entryFace)
        writer.array(entryGlyph)
        writer.array(fine)
        writer.array(coarse)
        writer.array(geometry)
        let exactPairs = exact.sorted { $0.key < $1.key }
        writer.array(exactPairs.map(\.key))
        writer.array(exactPairs.map(\.value))
        try LocalFile.makeDirectories((path as NSString).deletingLastPathComponent)
        try LocalFile.writeAtomically(writer.bytes, to: path)
    }
}
