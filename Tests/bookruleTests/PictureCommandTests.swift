import Foundation
import Testing
import TestSupport
@testable import bookrule

/// A text source whose only chapter is two pictures, on saved pages.
private let pictureSource = """
{"bookSourceName": "pictures", "bookSourceUrl": "https://pic.test",
 "ruleBookInfo": {"name": "//h1/text()", "tocUrl": "//a[@id='toc']/@href"},
 "ruleToc": {"chapterList": "//li", "chapterName": "tag.a@text", "chapterUrl": "tag.a@href"},
 "ruleContent": {"content": "//div[@id='c']"}}
"""

@Suite("Pictures in text chapters on the command line", .timeLimit(.minutes(2 * TestTime.scale)))
struct PictureCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    /// The source and its saved pages in a new directory.
    func savedSite() throws -> String {
        let directory = NSTemporaryDirectory() + "bookrule-pictures-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/pages", withIntermediateDirectories: true)
        try pictureSource.write(toFile: directory + "/pictures.json", atomically: true, encoding: .utf8)
        let pages = [
            "book.html": "<h1>插图书</h1><a id='toc' href='/toc.html'>目录</a>",
            "toc.html": "<ul><li><a href='/c/1.html'>第一章</a></li></ul>",
            "c1.html": "<div id='c'><p><img src='/p/1.png'></p><img data-src='//cdn.pic.test/2.png' src='/loading.gif'></div>",
        ]
        for (name, html) in pages { try html.write(toFile: directory + "/pages/" + name, atomically: true, encoding: .utf8) }
        try #"{"https://pic.test/book.html": "book.html", "https://pic.test/toc.html": "toc.html", "https://pic.test/c/1.html": "c1.html"}"#
            .write(toFile: directory + "/pages/pages.json", atomically: true, encoding: .utf8)
        return directory
    }

    @Test("bookrule chapter prints the image lines and counts them; --json lists the images")
    func chapterShowsPictures() async throws {
        let directory = try savedSite()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let words = ["chapter", "--source", directory + "/pictures.json", "--saved-dir", directory + "/pages", "https://pic.test/c/1.html"]
        let plain = await run(words)
        #expect(plain.status == 0, "\(plain.errors)")
        #expect(plain.output.contains("<img src=\"https://pic.test/p/1.png\">\n<img src=\"https://cdn.pic.test/2.png\">"))
        #expect(plain.errors.contains("2 picture(s)"))
        let json = await run(words + ["--json"])
        #expect(json.status == 0, "\(json.errors)")
        let parsed = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let images = parsed?["images"] as? [[String: Any]]
        #expect(images?.compactMap { $0["url"] as? String } == ["https://pic.test/p/1.png", "https://cdn.pic.test/2.png"])
    }

    @Test("fetch keeps the saved picture and warns about the other; the EPUB embeds one and shows the other's URL; export --offline fetches nothing; TXT has URL lines")
    func fetchAndExport() async throws {
        let directory = try savedSite()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // A whole 1×1 PNG stands in for the first picture; the second is not saved (a fetch error, never a failed export).
        let png: [UInt8] = [
            0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
            0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
            0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xDF, 0xC0, 0xF0,
            0x1F, 0x00, 0x06, 0x80, 0x02, 0x7F, 0x10, 0x4C, 0x1B, 0xE1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
            0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
        ]
        try Data(png).write(to: URL(fileURLWithPath: directory + "/pages/1.png"))
        try #"{"https://pic.test/book.html": "book.html", "https://pic.test/toc.html": "toc.html", "https://pic.test/c/1.html": "c1.html", "https://pic.test/p/1.png": {"file": "1.png", "contentType": "image/png"}}"#
            .write(toFile: directory + "/pages/pages.json", atomically: true, encoding: .utf8)
        let library = directory + "/library.sqlite"
        let fetched = await run(["fetch", "--source", directory + "/pictures.json", "--saved-dir", directory + "/pages",
                                 "https://pic.test/book.html", "--library", library, "--epub", "-o", directory + "/out/"])
        #expect(fetched.status == 0, "\(fetched.errors)")
        #expect(fetched.errors.contains("warning: the picture https://cdn.pic.test/2.png could not be fetched"), "\(fetched.errors)")
        #expect(fetched.errors.contains("1 picture(s) of the text are not in the library"), "\(fetched.errors)")

        let offline = await run(["export", "1", "--epub", "--txt", "--offline", "--library", library, "-o", directory + "/again/"])
        #expect(offline.status == 0, "\(offline.errors)")
        #expect(!offline.errors.contains("could not be fetched"), "--offline asks for nothing: \(offline.errors)")
        #expect(offline.errors.contains("1 picture(s) of the text are not in the library"))
        let txt = try String(contentsOfFile: directory + "/again/插图书.txt", encoding: .utf8)
        #expect(txt.contains("\u{3000}\u{3000}[图片] https://pic.test/p/1.png\n\u{3000}\u{3000}[图片] https://cdn.pic.test/2.png"))
        let epub = try Data(contentsOf: URL(fileURLWithPath: directory + "/again/插图书.epub"))
        // The PNG is stored uncompressed, so its bytes appear as they are in the archive.
        #expect(epub.range(of: Data(png)) != nil)
    }

    @Test("bookrule test passes a chapter of pictures only")
    func testPassesPictureChapter() async throws {
        let directory = try savedSite()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = await run(["test", directory + "/pictures.json", "--fixtures", directory + "/fixture",
                                "--book", "https://pic.test/book.html", "--saved-dir", directory + "/pages",
                                "--chapter", "https://pic.test/c/1.html", "--update"])
        #expect(result.status == 0, "\(result.output)\n\(result.errors)")
        #expect(result.output.contains("✓ chapter 1     https://pic.test/c/1.html"), "\(result.output)")
    }
}
