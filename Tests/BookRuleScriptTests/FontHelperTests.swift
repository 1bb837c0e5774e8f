import Foundation
import Testing
import BookRuleScript
import TestSupport

@Suite("java.queryTTF, java.replaceFont and java.decodeFont")
struct FontHelperTests {
    @Test("queryTTF reads a font from Base64 and from a URL; replaceFont maps by exact outlines, as Legado's")
    func queryAndReplace() async throws {
        let characters = "他说道好的"
        let wrong = try await TestFonts.make(source: TestFonts.hei, characters: characters, scheme: "pua", format: "woff2", seed: 8)
        let right = try await TestFonts.make(source: TestFonts.hei, characters: characters, scheme: "identity", format: "ttf", seed: 8)
        var fontResponse = ScriptResponse(url: "https://source.example/right.ttf", body: "")
        fontResponse.bodyBytes = right.bytes
        let host = RecordingScriptHost(responses: ["https://source.example/right.ttf": fontResponse])
        let runtime = try ScriptRuntime(jsLib: nil, host: host)
        let page = String(String.UnicodeScalarView(wrong.answers.keys.sorted().compactMap(Unicode.Scalar.init)))
        let expected = wrong.answers.sorted { $0.key < $1.key }.map(\.value).joined()
        let code = """
            var bad = java.queryTTF('\(Data(wrong.bytes).base64EncodedString())');
            var good = java.queryTTF('https://source.example/right.ttf');
            java.replaceFont('\(page)', bad, good) + '|' + bad.getGlyfIdByUnicode(0x41) + '|' + good.isBlankUnicode(0x4ED6)
            """
        #expect(try runtime.text(code) == expected + "|0|false")
        #expect(try runtime.text("java.queryTTF('') === null && java.replaceFont('abc', null, null) === 'abc'") == "true")
        #expect(throws: (any Error).self) { try runtime.text("java.queryTTF('bm90IGEgZm9udA==')") }
    }

    @Test("decodeFont reads a font nobody described by recognising its glyphs")
    func decodeFont() async throws {
        let made = try await TestFonts.make(source: TestFonts.ming, characters: "他说道：我们走吧。", scheme: "pua", format: "woff2", seed: 6)
        try TestFonts.decoder.prepare()
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        let page = String(String.UnicodeScalarView(made.answers.keys.sorted().compactMap(Unicode.Scalar.init)))
        let expected = made.answers.sorted { $0.key < $1.key }.map(\.value).joined()
        let decoded = try runtime.text("java.decodeFont('\(page)', '\(Data(made.bytes).base64EncodedString())')")
        // Every character but at most one (a Ming face's small colon and a comma are close calls) is read.
        #expect(decoded.count == expected.count)
        #expect(zip(decoded, expected).filter { $0 != $1 }.count <= 1, "\(decoded) for \(expected)")
        #expect(!decoded.unicodeScalars.contains { (0xE000...0xF8FF).contains($0.value) })
    }
}
