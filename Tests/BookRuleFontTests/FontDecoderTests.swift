import Foundation
import Testing
@testable import BookRuleFont
import TestSupport

/// Fonts the tests make (`TestFonts`): from faces that are not the references, every outline re-drawn.
@Suite("Web fonts are decoded by recognising their glyphs against the reference CJK fonts")
struct FontDecoderTests {
    @Test("a Hei face's Private Use Area font (WOFF2), re-drawn, reads as the characters it shows")
    func heiPrivateUse() async throws {
        let made = try await TestFonts.make(source: TestFonts.hei, scheme: "pua", format: "woff2", seed: 21)
        let decoding = try TestFonts.freshDecoder().decode(made.bytes, characters: Set(made.answers.keys))
        let result = TestFonts.accuracy(decoding, made)
        #expect(result.total > 100)
        #expect(Double(result.right) / Double(result.total) >= 0.97, "wrong: \(result.wrong)")
        #expect(!decoding.glyphs.keys.contains { !made.answers.keys.contains($0) })
    }

    @Test("a Ming face's shuffled font (TrueType) reads as the characters it shows, against Hei and Song references")
    func mingShuffled() async throws {
        let made = try await TestFonts.make(source: TestFonts.ming, scheme: "shuffle", format: "ttf", seed: 22)
        let decoding = try TestFonts.freshDecoder().decode(made.bytes, characters: Set(made.answers.keys))
        let result = TestFonts.accuracy(decoding, made)
        #expect(Double(result.right) / Double(result.total) >= 0.95, "wrong: \(result.wrong)")
        // Shuffled: the text's characters are replaced, so applying the decoding to the page's text gives the answer.
        let page = String(String.UnicodeScalarView(made.answers.keys.sorted().compactMap(Unicode.Scalar.init)))
        let shown = made.answers.sorted { $0.key < $1.key }.map(\.value).joined()
        let decoded = decoding.apply(to: page)
        let same = zip(decoded, shown).filter { $0 == $1 }.count
        #expect(Double(same) / Double(shown.count) >= 0.95)
    }

    @Test("WOFF, WOFF2 and TrueType files of one font decode alike")
    func formats() async throws {
        let decoder = try TestFonts.freshDecoder()
        var maps: [[UInt32: UInt32]] = []
        for format in ["ttf", "woff", "woff2"] {
            let made = try await TestFonts.make(source: TestFonts.hei, characters: "的一了是不着人在他这，。", scheme: "pua",
                                                format: format, seed: 5)
            maps.append(try decoder.decode(made.bytes, characters: Set(made.answers.keys)).glyphs.mapValues(\.scalar))
        }
        #expect(maps[0].count == 12)
        #expect(maps[0] == maps[1] && maps[1] == maps[2])
    }

    @Test("a decoded font is kept by its content hash: a second decoder with the same cache reads it without recognising")
    func decodedMapCached() async throws {
        let scratch = try ScratchDirectory("font-cache")
        try TestFonts.decoder.prepare()
        let made = try await TestFonts.make(source: TestFonts.hei, characters: "他说道：“好的。”", scheme: "pua", format: "woff2", seed: 9)
        let first = FontDecoder(cacheDirectory: scratch.path)
        first.adoptReferences(from: TestFonts.decoder)
        let decoded = try first.decode(made.bytes, characters: Set(made.answers.keys))
        let hash = FontDecoder.sha256(made.bytes)
        #expect(FileManager.default.fileExists(atPath: scratch.path + "/decoded/\(hash).json"))
        // No references at all: only the cache can answer.
        let second = FontDecoder(cacheDirectory: scratch.path, referenceFonts: [])
        let again = try second.decode(made.bytes, characters: Set(made.answers.keys))
        #expect(again.glyphs == decoded.glyphs)
        #expect(again.fontHash == hash)
    }

    @Test("bytes that are no font, an empty file, and fonts past the limits are errors that say so")
    func badFonts() async throws {
        let decoder = FontDecoder(cacheDirectory: nil, referenceFonts: [])
        #expect(throws: FontError.self) { try decoder.decode(Array("not a font at all".utf8)) }
        do {
            _ = try decoder.decode([])
            Issue.record("an empty font decoded")
        } catch {
            #expect(error.description.contains("empty"))
        }
        let small = FontDecoder(cacheDirectory: nil, referenceFonts: [], limits: FontLimits(maxBytes: 10))
        #expect(throws: FontError.tooLarge(bytes: 17, limit: 10)) { try small.decode(Array("not a font at all".utf8)) }
        let made = try await TestFonts.make(source: TestFonts.hei, characters: "的一了是不", scheme: "pua", format: "ttf", seed: 3)
        let few = FontDecoder(cacheDirectory: nil, referenceFonts: [], limits: FontLimits(maxGlyphs: 3))
        #expect(throws: FontError.tooManyGlyphs(count: 6, limit: 3)) { try few.decode(made.bytes) }
        // No reference fonts: a clear error naming the package, not a crash.
        let blind = FontDecoder(cacheDirectory: nil, referenceFonts: [])
        #expect(throws: FontError.noReferenceFonts(searched: ReferenceFont.notoCJK.map(\.path))) {
            try blind.decode(made.bytes)
        }
    }

    @Test("a damaged or foreign reference cache is not read (rebuilt instead)")
    func damagedReferenceCache() throws {
        let scratch = try ScratchDirectory("font-references")
        let path = scratch.path + "/references.bin"
        try Data("BOOKRULE junk".utf8).write(to: URL(fileURLWithPath: path))
        #expect(ReferenceIndex.load(path: path, fonts: ReferenceFont.notoCJK) == nil)
        var writer = BinaryWriter()
        writer.string(ReferenceIndex.stamp(of: ReferenceFont.notoCJK))
        writer.array([UInt32](repeating: 0x4E00, count: 3))
        try Data(writer.bytes).write(to: URL(fileURLWithPath: path))
        #expect(ReferenceIndex.load(path: path, fonts: ReferenceFont.notoCJK) == nil)
    }

    @Test("GB2312's 6,763 characters, its punctuation and ASCII are the candidates")
    func candidates() {
        let candidates = CandidateCharacters.gb2312()
        let hanzi = candidates.scalars.filter { (0x4E00...0x9FFF).contains($0) }
        #expect(hanzi.count == 6763)
        #expect(candidates.scalars.contains(0xFF0C) && candidates.scalars.contains(0x3002) && candidates.scalars.contains(0x41))
        #expect(Set(candidates.scalars).count == candidates.scalars.count)
    }
}

@Suite("Legado's QueryTTF and replaceFont: exact outlines")
struct FontOutlinesTests {
    @Test("a Private Use Area font and a font of the same outlines on the real code points: replaceFont restores the text")
    func replaceFontExact() async throws {
        let characters = "他说道好的一了是"
        // The same seed re-draws each character the same way whatever its code point.
        let wrong = try await TestFonts.make(source: TestFonts.hei, characters: characters, scheme: "pua", format: "woff2", seed: 4)
        let right = try await TestFonts.make(source: TestFonts.hei, characters: characters, scheme: "identity", format: "ttf", seed: 4)
        let wrongFont = try FontOutlines(bytes: wrong.bytes)
        let rightFont = try FontOutlines(bytes: right.bytes)
        let page = String(String.UnicodeScalarView(wrong.answers.keys.sorted().compactMap(Unicode.Scalar.init))) + "x"
        let expected = wrong.answers.sorted { $0.key < $1.key }.map(\.value).joined() + "x"
        #expect(wrongFont.replacing(page, with: rightFont, filter: false) == expected)
        // filter drops what the wrong font does not draw.
        #expect(wrongFont.replacing(page, with: rightFont, filter: true) == String(expected.dropLast()))
        let code = try #require(wrong.answers.keys.min())
        #expect(wrongFont.glyphID(of: code) != 0)
        #expect(rightFont.code(of: wrongFont.outline(of: code)) == wrong.answers[code]?.unicodeScalars.first?.value)
        #expect(wrongFont.glyphID(of: 0x41) == 0 && wrongFont.outline(of: 0x41) == nil && wrongFont.isBlank(0x41))
    }
}
