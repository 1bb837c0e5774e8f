import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve reads web fonts as the command says", .timeLimit(.minutes(2 * TestTime.scale)))
struct ServeWebFontTests {
    static let text = "他说道：我们已经到了，你看清楚一些。她点了点头，心里却还是有些不好的感觉。"

    /// A book of one chapter whose text a Private Use Area font draws, as saved pages, and a library holding the
    /// book with no chapter saved.
    static func site(in scratch: ScratchDirectory) async throws -> (stack: TransportStack, library: String, sourcePath: String,
                                                              bookURL: String, encoded: String) {
        let made = try await TestFonts.make(source: TestFonts.hei, characters: text, scheme: "pua", format: "woff2", seed: 43)
        try TestFonts.decoder.prepare()
        var codeOf: [String: UInt32] = [:]
        for (code, character) in made.answers { codeOf[character] = code }
        let encoded = String(String.UnicodeScalarView(text.map { character in
            codeOf[String(character)].flatMap(Unicode.Scalar.init) ?? character.unicodeScalars.first ?? " "
        }))
        let chapter = """
            <html><head><style>@font-face { font-family: secret; src: url(data:font/woff2;base64,\(Data(made.bytes).base64EncodedString())); }
            .content { font-family: secret; }</style></head><body><div id="c" class="content">\(encoded)</div></body></html>
            """
        let bookURL = "https://fonts.test/book/"
        let pages = [
            SavedPage(url: bookURL, body: Array("<html><body><h1>字体之书</h1><a href=\"/1.html\">第一章</a></body></html>".utf8),
                      contentType: "text/html; charset=utf-8", file: "book"),
            SavedPage(url: "https://fonts.test/1.html", body: Array(chapter.utf8), contentType: "text/html; charset=utf-8", file: "1"),
        ]
        let json = """
            {"bookSourceUrl": "https://fonts.test", "bookSourceName": "fonts",
             "ruleBookInfo": {"name": "//h1/text()"},
             "ruleToc": {"chapterList": "//a", "chapterName": "/text()", "chapterUrl": "/@href"},
             "ruleContent": {"content": "//div[@id='c']"}}
            """
        let sourcePath = scratch.path + "/source.json"
        try json.write(toFile: sourcePath, atomically: true, encoding: .utf8)
        let stack = try TransportStack.offline(pages: pages)
        let library = scratch.path + "/library.sqlite"
        let store = try LibraryStore(path: library)
        let fetch = BookFetch(source: try loadSource(json), stack: stack, store: store)
        for try await _ in fetch.run(bookURL: bookURL, range: 2...2) {}
        return (stack, library, sourcePath, bookURL, encoded)
    }

    static func content(_ server: ReadingServer, bookURL: String) async throws -> String {
        let url = bookURL.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? bookURL
        let response = try await RawHTTP(port: server.port).send("GET", "/getBookContent?url=\(url)&index=0")
        guard case .string(let text)? = try JSONParser.parse(response.body).value.objectValue?["data"]?.value else {
            throw TestFailure("no text: \(response.status) \(response.text)")
        }
        return text
    }

    @Test("With --no-font-decoding (the task-local the CLI binds) the server's threads leave the text as the page has it; without, it is decoded")
    func theFlagReachesTheServersThreads() async throws {
        let scratch = try ScratchDirectory("serve-webfont")
        let site = try await Self.site(in: scratch)
        let configuration = ServeConfiguration(libraryPath: site.library, sourcePaths: [site.sourcePath], port: 0,
                                               transport: site.stack, siteSeconds: TestTime.seconds(30), prefetchChapters: 0)
        let plain = try WebFontReading.$current.withValue(nil) { try ReadingServer(configuration: configuration) }
        let undecoded = try await Self.content(plain, bookURL: site.bookURL)
        await plain.stop(waitingUpTo: 5)
        #expect(undecoded.contains(site.encoded), "\(undecoded)")

        let scratch2 = try ScratchDirectory("serve-webfont-decoded")
        let other = try await Self.site(in: scratch2)
        let decoding = try ReadingServer(configuration: ServeConfiguration(
            libraryPath: other.library, sourcePaths: [other.sourcePath], port: 0, transport: other.stack,
            siteSeconds: TestTime.seconds(30), prefetchChapters: 0))
        let decoded = try await Self.content(decoding, bookURL: other.bookURL)
        await decoding.stop(waitingUpTo: 5)
        #expect(!decoded.unicodeScalars.contains { (0xE000...0xF8FF).contains($0.value) }, "\(decoded)")
        #expect(decoded.contains("我们已经到了"), "\(decoded)")
    }
}
