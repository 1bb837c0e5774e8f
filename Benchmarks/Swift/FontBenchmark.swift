import BookRule
import Foundation

/// `bookrule-bench font FONT MAP.json [FONT MAP.json …]`: decodes each web font cold (a new decoder with no
/// decoded-map cache; the reference index from the cache directory when present) and prints, per font and in
/// all, the share of code points read as the character the map says, and the time each font took.
///   bookrule font <label> glyphs=<n> right=<r> accuracy=<r/n> ms=<decode time> low=<low-confidence count>
enum FontBenchmark {
    static func run(pairs: [(font: String, map: String)]) throws {
        let referenceStart = ContinuousClock.now
        let warm = FontDecoder(cacheDirectory: FontDecoder.defaultCacheDirectory())
        try warm.prepare()
        print("bookrule font references ms=\(milliseconds(ContinuousClock.now - referenceStart))")
        var total = 0
        var right = 0
        // BENCH_TEXT: a text whose character counts weigh the accuracy (what a reader sees), besides the plain one.
        var weights: [String: Int] = [:]
        if let path = ProcessInfo.processInfo.environment["BENCH_TEXT"], let text = try? String(contentsOfFile: path, encoding: .utf8) {
            for character in text where !character.isWhitespace { weights[String(character), default: 0] += 1 }
        }
        var weightedTotal = 0
        var weightedRight = 0
        for (fontPath, mapPath) in pairs {
            let bytes = try LocalFile.read(fontPath)
            let mapBytes = try LocalFile.read(mapPath)
            guard let map = try JSONSerialization.jsonObject(with: Data(mapBytes)) as? [String: String] else {
                fail("\(mapPath): not a JSON object of code point → character")
            }
            var expected: [UInt32: String] = [:]
            for (key, value) in map { if let code = UInt32(key, radix: 16) { expected[code] = value } }
            // A decoder of its own: nothing decoded is cached from an earlier font or run.
            let decoder = FontDecoder(cacheDirectory: nil)
            decoder.adoptReferences(from: warm)
            let start = ContinuousClock.now
            let decoding = try decoder.decode(bytes, characters: Set(expected.keys))
            let elapsed = ContinuousClock.now - start
            var fontRight = 0
            var wrong: [String] = []
            for (code, character) in expected.sorted(by: { $0.key < $1.key }) {
                let got = decoding.glyphs[code]?.character ?? "?"
                let weight = weights[character] ?? 0
                weightedTotal += weight
                if got == character { fontRight += 1; weightedRight += weight } else { wrong.append("\(character)→\(got)") }
            }
            let low = decoding.glyphs.values.filter(\.isLowConfidence).count
            total += expected.count
            right += fontRight
            let label = (fontPath as NSString).lastPathComponent
            print("bookrule font \(label) glyphs=\(expected.count) right=\(fontRight) "
                + String(format: "accuracy=%.4f", Double(fontRight) / Double(max(1, expected.count)))
                + " ms=\(milliseconds(elapsed)) low=\(low) wrong=\(wrong.prefix(40).joined(separator: " "))")
        }
        print(String(format: "bookrule font all glyphs=%d right=%d accuracy=%.4f weighted=%.4f", total, right,
                     Double(right) / Double(max(1, total)), Double(weightedRight) / Double(max(1, weightedTotal))))
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
