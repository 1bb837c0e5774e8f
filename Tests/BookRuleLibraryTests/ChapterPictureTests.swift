import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
@testable import BookRuleEngine
@testable import BookRuleLibrary
import BookRuleDocument
import BookRuleHTTP
import BookRuleScript
import TestSupport

@Suite("Pictures in text chapters: fetched into the library once, embedded in EPUB, a URL line in TXT",
       .timeLimit(.minutes(3 * TestTime.scale)))
struct ChapterPictureTests {
    /// A library with one book of two saved text chapters showing pictures served at `base`.
    static func library(base: String) throws -> (store: LibraryStore, book: StoredBook, directory: String) {
        let directory = try scratchDirectory()
        let store = try LibraryStore(path: directory + "/library.sqlite")
        let record = BookSourceRecord(sourceURL: "https://novel.test", sourceName: "pictures", json: "{}")
        let book = try store.upsertBook(source: record, info: BookInfo(
            url: "https://novel.test/book/1/", name: "插图本", author: "某人", intro: "", kind: "", lastChapter: "",
            updateTime: "", coverURL: "", tocURL: "https://novel.test/book/1/", wordCount: "", variables: [:], warnings: []))
        _ = try store.mergeTOC(bookID: book.id, chapters: [
            Chapter(index: 0, title: "第一章", url: "https://novel.test/c/1"),
            Chapter(index: 1, title: "第二章", url: "https://novel.test/c/2"),
        ])
        try store.saveChapter(bookID: book.id, url: "https://novel.test/c/1",
                              text: "第一段\n" + ImageLine(url: base + "/a.png").line + "\n第二段")
        // Only pictures: one missing (404), one shown again (fetched once, one file in the EPUB).
        try store.saveChapter(bookID: book.id, url: "https://novel.test/c/2",
                              text: ImageLine(url: base + "/missing.png").line + "\n" + ImageLine(url: base + "/a.png").line)
        return (store, book, directory)
    }

    @Test("the PNG is fetched and embedded (file, manifest item, <img> with alt); the 404 is a placeholder and a warning; TXT keeps URL lines; a re-export fetches nothing that is kept")
    func exportWithPictures() async throws {
        let server = try LoopbackServer(maxConnections: 10, lifetime: 60) { request, _ in
            request.target == "/a.png"
                ? LoopbackServer.reply(200, "OK", headers: [("Content-Type", "image/png")], body: ExportTests.png)
                : LoopbackServer.reply(404, "Not Found")
        }
        let base = "http://127.0.0.1:\(server.port)"
        let (store, book, directory) = try Self.library(base: base)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(try PictureFetch.pictureURLs(bookID: book.id, store: store) == [base + "/a.png", base + "/missing.png"])

        let fetch = PictureFetch(transport: fastFetcher(), headers: [HTTPHeader("Referer", "https://novel.test/")])
        let first = try await fetch.run(bookID: book.id, store: store)
        #expect(first.pictures == 2 && first.fetched == 1 && first.alreadyKept == 0)
        #expect(first.problems.map(\.url) == [base + "/missing.png"])
        #expect(first.problems.first?.description.contains("404") == true)
        #expect(server.requests.first { $0.target == "/a.png" }?.headers.contains { $0.name == "Referer" } == true)
        let kept = PictureFiles(store: store, bookID: book.id).path(for: base + "/a.png")
        #expect(FileManager.default.contents(atPath: kept).map { [UInt8]($0) } == ExportTests.png)

        let export = try LibraryExport(book, store: store)
        #expect(export.missingPictures == [base + "/missing.png"])
        #expect(export.missingPicturesWarning?.hasPrefix("1 picture(s) of the text are not in the library") == true)
        let epub = directory + "/book.epub"
        try export.write(.epub, to: epub)
        let entries = try readZip(epub)
        #expect(entries.first { $0.name == "OEBPS/images/picture-0001.png" }?.bytes == ExportTests.png)
        #expect(entries.filter { $0.name.hasPrefix("OEBPS/images/picture-") }.count == 1)
        let opf = try #require(entries.first { $0.name == "OEBPS/content.opf" }).text
        #expect(opf.contains(#"<item id="picture-0001" href="images/picture-0001.png" media-type="image/png"/>"#))
        let one = try #require(entries.first { $0.name == "OEBPS/text/chapter-0001.xhtml" }).text
        #expect(one.contains(#"<p>第一段</p>"#))
        #expect(one.contains(#"<div class="picture"><img src="../images/picture-0001.png" alt="第一章 图片 1"/></div>"#))
        let two = try #require(entries.first { $0.name == "OEBPS/text/chapter-0002.xhtml" }).text
        #expect(two.contains("<p class=\"picture-link\">[图片] \(base)/missing.png</p>"))
        #expect(two.contains(#"<img src="../images/picture-0001.png""#))
        for entry in entries where entry.name.hasSuffix(".xhtml") || entry.name.hasSuffix(".opf") {
            #expect(XMLParser(data: Data(entry.bytes)).parse(), "\(entry.name) is not well-formed")
        }

        let txt = directory + "/book.txt"
        try export.write(.txt, to: txt)
        let text = try String(contentsOfFile: txt, encoding: .utf8)
        #expect(text.contains("\u{3000}\u{3000}第一段\n\u{3000}\u{3000}[图片] \(base)/a.png\n\u{3000}\u{3000}第二段"))
        #expect(text.contains("\u{3000}\u{3000}[图片] \(base)/missing.png"))
        #expect(!text.contains("<img"))

        // Again: the kept picture is not asked for; only the missing one is tried once more.
        let before = server.requests.count
        let second = try await fetch.run(bookID: book.id, store: store)
        #expect(second.alreadyKept == 1 && second.fetched == 0 && second.problems.count == 1)
        #expect(server.requests.dropFirst(before).map(\.target) == ["/missing.png"])
        #expect(server.requests.filter { $0.target == "/a.png" }.count == 1)

        if let tool = EPUBCheck.tool {
            let (status, report) = try await EPUBCheck.run(epub, tool: tool)
            #expect(status == 0, "epubcheck:\n\(report)")
            #expect(!report.contains("ERROR") && !report.contains("FATAL"), "epubcheck:\n\(report)")
        }
    }

    @Test("a picture's own ,{\"headers\": …} take the place of the source's same-named headers")
    func pictureHeaders() {
        let fetch = PictureFetch(transport: TestSite([:]), headers: [HTTPHeader("Referer", "https://novel.test/"),
                                                                     HTTPHeader("Accept", "image/*")])
        let own = fetch.requestHeaders(for: ImageLine(url: "https://img.test/a.png", options: #",{"headers": {"referer": "https://img.test/"}}"#))
        #expect(own.map(\.name) == ["Accept", "referer"])
        #expect(own.last?.value == "https://img.test/")
        #expect(fetch.requestHeaders(for: ImageLine(url: "https://img.test/a.png")).count == 2)
        #expect(fetch.requestHeaders(for: ImageLine(url: "https://img.test/a.png", options: ",{not json")).count == 2)
    }

    @Test("what the site sends that is not a whole picture is not kept, and is said")
    func notAPicture() async throws {
        let server = try LoopbackServer(maxConnections: 4, lifetime: 60) { _, _ in
            LoopbackServer.reply(200, "OK", headers: [("Content-Type", "image/png")], body: Array("<html>error</html>".utf8))
        }
        let base = "http://127.0.0.1:\(server.port)"
        let (store, book, directory) = try Self.library(base: base)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let report = try await PictureFetch(transport: fastFetcher()).run(bookID: book.id, store: store)
        #expect(report.fetched == 0 && report.problems.count == 2)
        #expect(report.problems.allSatisfy { if case .notAnImage = $0 { true } else { false } })
        #expect(PictureFiles(store: store, bookID: book.id).image(for: base + "/a.png") == nil)
        #expect(!FileManager.default.fileExists(atPath: PictureFiles(store: store, bookID: book.id).path(for: base + "/a.png")))
    }

    @Test("--convert leaves image lines alone and converts the text around them")
    func conversionKeepsImageLines() throws {
        let line = ImageLine(url: "https://img.test/圖/1.png").line
        let converted = try LibraryExport.convert("這是\n" + line + "\n說話",
                                                  with: ChineseConverter.shared(.traditionalToSimplified))
        #expect(converted == "这是\n" + line + "\n说话")
    }
}
