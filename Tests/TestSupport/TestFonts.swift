import Foundation
import BookRuleFont
import BookRuleLocking

/// Obfuscated web fonts made for tests by `scripts/make-test-font.py` (fontTools, under Debian's Python, which
/// `scripts/install-deps.sh` installs), from installed faces other than the references, every outline re-drawn;
/// and the decoder the tests share, whose reference index is built once per checkout
/// (`.build/test-font-cache`) rather than once per test.
package enum TestFonts {
    /// A Hei (sans) face and a Ming (serif) face, neither of them a reference.
    package static let hei = "/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc"
    package static let ming = "/usr/share/fonts/truetype/arphic/uming.ttc"

    /// Common characters of a novel's text (the corpus' chapters, most frequent first) and its punctuation.
    package static let novelCharacters = "的一了是不着人在他这有个上来到中大小年子少出身那就之看清她声而然自起地说下手过对心道眼青得时里为光好生么天还开没所世于间现己头发去些后无寒我你们也都要会可以能把被从向给让当前面已经只又再最很更真正样东西事情问题"
        + "，。！？“”：；、…"

    /// A font made by the script: its bytes and its answer (code point → the character its glyph shows).
    package struct Made: Sendable {
        package var bytes: [UInt8]
        package var answers: [UInt32: String]
    }

    /// Makes a font of `characters` from `source` with the given scheme (`pua`, `shuffle`, `identity`) and format
    /// (`ttf`, `woff`, `woff2`). The script runs for a second or more: it is waited for on a thread of its own,
    /// not on Swift's cooperative pool, whose two threads the whole suite shares (docs/developing/testing.md).
    package static func make(source: String, characters: String = novelCharacters, scheme: String,
                             format: String, seed: Int) async throws -> Made {
        let make = { @Sendable in
            Result { try makeBlocking(source: source, characters: characters, scheme: scheme, format: format, seed: seed) }
        }
        return try (await BlockingWorkThread.run(make) ?? make()).get()
    }

    private static func makeBlocking(source: String, characters: String, scheme: String, format: String, seed: Int) throws -> Made {
        let scratch = try ScratchDirectory("font")
        let fontPath = scratch.path + "/font." + format
        let mapPath = scratch.path + "/map.json"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [SharedCorpus.repositoryRoot + "/scripts/make-test-font.py", "--source", source,
                             "--chars", characters, "--scheme", scheme, "--format", format, "--seed", String(seed),
                             "--out", fontPath, "--map", mapPath]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let errorText = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFontError("make-test-font.py failed (\(process.terminationStatus)): "
                + String(decoding: errorText, as: UTF8.self) + " (scripts/install-deps.sh installs python3-fonttools)")
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fontPath)))
        let map = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: mapPath))) as? [String: String] ?? [:]
        var answers: [UInt32: String] = [:]
        for (key, value) in map { if let code = UInt32(key, radix: 16) { answers[code] = value } }
        return Made(bytes: bytes, answers: answers)
    }

    /// The decoder tests share: its reference index is kept where `scripts/run-tests.sh` points the bookrule
    /// processes tests start (`.build/test-cache`), built by the first test run of a checkout.
    package static let decoder = FontDecoder(cacheDirectory: SharedCorpus.repositoryRoot + "/.build/test-cache/bookrule/fonts")

    /// A decoder with nothing decoded yet (in memory only) that uses the shared reference index.
    package static func freshDecoder() throws -> FontDecoder {
        try decoder.prepare()
        // No time limit to speak of: a debug build on two cores shared with the rest of the suite is slow, and a
        // glyph not reached in time would read as a wrong one.
        let fresh = FontDecoder(cacheDirectory: nil, limits: FontLimits(timeLimit: .seconds(600)))
        fresh.adoptReferences(from: decoder)
        return fresh
    }

    /// The share of `made`'s code points that `decoding` reads as their answer.
    package static func accuracy(_ decoding: FontDecoding, _ made: Made) -> (right: Int, total: Int, wrong: [String]) {
        var right = 0
        var wrong: [String] = []
        for (code, character) in made.answers.sorted(by: { $0.key < $1.key }) {
            let got = decoding.glyphs[code]?.character ?? "?"
            if got == character { right += 1 } else { wrong.append("\(character)→\(got)") }
        }
        return (right, made.answers.count, wrong)
    }
}

package struct TestFontError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}
