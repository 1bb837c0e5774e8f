import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule chapter decodes web fonts, says so, and --no-font-decoding leaves the text")
struct WebFontCommandTests {
    static let text = "他说道：“我们已经到了，你看清楚一些。”她点了点头，心里却还是有些不好的感觉。"

    @Test("a saved chapter drawn with a Private Use Area font reads as the font shows it")
    func chapterDecoded() async throws {
        let made = try await TestFonts.make(source: TestFonts.hei, characters: Self.text, scheme: "pua", format: "woff2", seed: 41)
        try TestFonts.decoder.prepare()  // the reference index, built once per checkout (docs/fonts.md)
        var codeOf: [String: UInt32] = [:]
        for (code, character) in made.answers { codeOf[character] = code }
        let encoded = String(String.UnicodeScalarView(Self.text.map { character in
            codeOf[String(character)].flatMap(Unicode.Scalar.init) ?? character.unicodeScalars.first ?? " "
        }))
        let scratch = try ScratchDirectory("webfont-command")
        let page = scratch.path + "/1.html"
        try """
            <html><head><style>@font-face { font-family: secret; src: url(data:font/woff2;base64,\(Data(made.bytes).base64EncodedString())); }
            .content { font-family: secret; }</style></head>
            <body><div id="c" class="content">\(encoded)</div></body></html>
            """.write(toFile: page, atomically: true, encoding: .utf8)
        let source = scratch.path + "/source.json"
        try """
            {"bookSourceUrl": "https://fonts.test", "bookSourceName": "fonts", "ruleContent": {"content": "//div[@id='c']"}}
            """.write(toFile: source, atomically: true, encoding: .utf8)
        let url = "https://fonts.test/1.html"
        let decoded = await runCommand(["chapter", "--source", source, "--saved", "\(url)=\(page)", url])
        #expect(decoded.status == 0, "\(decoded.errors)")
        let same = zip(decoded.output.split(separator: "\n").last.map(String.init) ?? "", Self.text).filter { $0 == $1 }.count
        // A Hei face's narrow curly quotes are the hardest marks to read: at most a few characters wrong.
        #expect(Double(same) / Double(Self.text.count) >= 0.9, "\(decoded.output)")
        #expect(!decoded.output.unicodeScalars.contains { (0xE000...0xF8FF).contains($0.value) })
        #expect(decoded.errors.contains("note: web fonts: "), "\(decoded.errors)")
        #expect(decoded.errors.contains("from \"secret\""), "\(decoded.errors)")

        let json = await runCommand(["chapter", "--source", source, "--saved", "\(url)=\(page)", "--json", url])
        #expect(json.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let fonts = (object?["fonts"] as? [String: Any])?["fonts"] as? [[String: Any]]
        #expect(fonts?.first?["family"] as? String == "secret", "\(json.output)")
        #expect((fonts?.first?["changed"] as? Int ?? 0) > 20)

        let plain = await runCommand(["chapter", "--no-font-decoding", "--source", source, "--saved", "\(url)=\(page)", url])
        #expect(plain.status == 0)
        #expect(plain.output.contains(encoded))
        #expect(plain.errors.contains("Private Use Area"), "\(plain.errors)")
        #expect(!plain.errors.contains("note: web fonts"))
    }
}
