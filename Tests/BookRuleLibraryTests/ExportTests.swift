import CLibZip
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import BookRuleHTTP
@testable import BookRuleEngine
@testable import BookRuleJSON
@testable import BookRuleLibrary
import TestSupport

@Suite("Export: TXT, EPUB and safe file names")
struct ExportTests {
    /// A valid 1×1 RGBA PNG.
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
        0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0xDF, 0xC0, 0xF0,
        0x1F, 0x00, 0x06, 0x80, 0x02, 0x7F, 0x10, 0x4C, 0x1B, 0xE1, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
        0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    /// The example book: 3 chapters, a volume heading and a cover.
    static let book = ExportBook(
        title: "星河彼岸", author: "青灯", intro: "　　一个关于星河的故事。\n\n　　第二段简介。",
        sourceURL: "https://example.test/source.json", bookURL: "https://example.test/book/1/",
        cover: ExportCover(bytes: png, mediaType: "image/jpeg"),  // declared wrong on purpose: sniffed as PNG
        chapters: [
            ExportChapter(title: "序章 启程", text: "　　第一段。\n　　第二段。"),
            ExportChapter(title: "第一卷 远方", text: "", isVolume: true),
            ExportChapter(title: "第一章 出发", text: "他说：“走吧。”\r\n\n她点头。"),
            ExportChapter(title: "第二章 <script>&\"'", text: "<script>alert(\"x\")</script> & 'quoted'\u{1}\u{FFFE}end"),
        ])

    // MARK: TXT

    @Test("TXT: title, author, intro, headings and paragraphs indented with two U+3000")
    func txtLayout() {
        let expected = """
            星河彼岸
            作者：青灯

            简介：
            　　一个关于星河的故事。
            　　第二段简介。

            序章 启程

            　　第一段。
            　　第二段。

            第一卷 远方

            第一章 出发

            　　他说：“走吧。”
            　　她点头。

            第二章 <script>&"'

            　　<script>alert("x")</script> & 'quoted'end

            """
        #expect(TXTExporter.text(Self.book) == expected)
    }

    @Test("TXT: written atomically, leaving no temporary file")
    func txtWrite() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/book.txt"
        try TXTExporter.write(Self.book, to: path)
        try TXTExporter.write(Self.book, to: path)  // replaces
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == TXTExporter.text(Self.book))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["book.txt"])
    }

    @Test("a book without chapters is refused with an actionable message")
    func noChapters() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let empty = ExportBook(title: "空书", chapters: [])
        #expect(throws: ExportError.noChapters(title: "空书")) { try EPUBExporter.write(empty, to: directory + "/a.epub") }
        #expect(throws: ExportError.noChapters(title: "空书")) { try TXTExporter.write(empty, to: directory + "/a.txt") }
        #expect(ExportError.noChapters(title: "空书").description.contains("no saved chapters"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }

    // MARK: EPUB

    @Test("EPUB: mimetype first, stored, no extra field; every part present")
    func epubStructure() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/book.epub"
        try EPUBExporter.write(Self.book, to: path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["book.epub"])

        // The raw local header of the first entry, as EPUB OCF requires it.
        let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        try #require(raw.count > 58)
        #expect(raw[0..<4] == [0x50, 0x4B, 0x03, 0x04])
        #expect(raw[8] == 0 && raw[9] == 0, "compression method must be 0 (stored)")
        #expect(raw[28] == 0 && raw[29] == 0, "the mimetype entry must have no extra field")
        #expect(String(decoding: raw[30..<38], as: UTF8.self) == "mimetype")
        #expect(String(decoding: raw[38..<58], as: UTF8.self) == "application/epub+zip")

        // Read back with libzip.
        let entries = try readZip(path)
        #expect(entries.first?.name == "mimetype")
        #expect(entries.first?.method == Int32(ZIP_CM_STORE))
        #expect(entries.first.map { String(decoding: $0.bytes, as: UTF8.self) } == "application/epub+zip")
        let names = entries.map(\.name)
        #expect(names == [
            "mimetype", "META-INF/container.xml", "OEBPS/content.opf", "OEBPS/nav.xhtml", "OEBPS/toc.ncx",
            "OEBPS/style.css", "OEBPS/images/cover.png", "OEBPS/text/cover.xhtml", "OEBPS/text/title.xhtml",
            "OEBPS/text/chapter-0001.xhtml", "OEBPS/text/chapter-0002.xhtml", "OEBPS/text/chapter-0003.xhtml",
            "OEBPS/text/chapter-0004.xhtml",
        ])
        #expect(entries.first { $0.name == "OEBPS/images/cover.png" }?.bytes == Self.png)

        let opf = try #require(entries.first { $0.name == "OEBPS/content.opf" }).text
        #expect(opf.contains("unique-identifier=\"book-id\""))
        #expect(opf.contains("<dc:identifier id=\"book-id\">\(Self.book.identifier)</dc:identifier>"))
        #expect(opf.contains("<dc:title>星河彼岸</dc:title>"))
        #expect(opf.contains("<dc:creator id=\"creator\">青灯</dc:creator>"))
        #expect(opf.contains("<dc:language>zh</dc:language>"))
        #expect(opf.contains("<dc:description>一个关于星河的故事。\n第二段简介。</dc:description>"))
        #expect(opf.contains("properties=\"cover-image\""))
        #expect(opf.contains("media-type=\"image/png\""))
        #expect(opf.contains("<meta property=\"dcterms:modified\">"))

        // Chapters after the volume heading are nested under it.
        let nav = try XMLDocument(data: Data(try #require(entries.first { $0.name == "OEBPS/nav.xhtml" }).bytes))
        let nested = try nav.nodes(forXPath: "//*[local-name()='li'][*[local-name()='a'][@href='text/chapter-0002.xhtml']]//*[local-name()='a']/@href")
        #expect(nested.compactMap(\.stringValue) == [
            "text/chapter-0002.xhtml", "text/chapter-0003.xhtml", "text/chapter-0004.xhtml",
        ])
    }

    @Test("EPUB: every text is escaped and each document is well-formed XML")
    func epubEscaping() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/book.epub"
        let hostile = ExportBook(
            title: "<b>&\"'\u{1}", author: "A & B <c>", intro: "]]> <!-- \u{1B}",
            chapters: [ExportChapter(title: "<script>&\"'\u{1}", text: "<script>&\"'\u{1}\n</p><p>")])
        try EPUBExporter.write(hostile, to: path)
        let documents = try readZip(path).filter { [".xhtml", ".opf", ".ncx", ".xml"].contains(where: $0.name.hasSuffix) }
        #expect(documents.count == 6)
        for document in documents {
            #expect(!document.text.contains("\u{1}"), "\(document.name) keeps a control character")
            #expect(!document.text.contains("<script"), "\(document.name) lets markup through")
            _ = try XMLDocument(data: Data(document.bytes))
        }
        let chapter = try #require(documents.first { $0.name == "OEBPS/text/chapter-0001.xhtml" })
        let xml = try XMLDocument(data: Data(chapter.bytes))
        let heading = try xml.nodes(forXPath: "//*[local-name()='h1']").first?.stringValue
        #expect(heading == "<script>&\"'")
        let paragraphs = try xml.nodes(forXPath: "//*[local-name()='p']").compactMap(\.stringValue)
        #expect(paragraphs == ["<script>&\"'", "</p><p>"])
    }

    @Test("EPUB of the example book passes epubcheck with no errors",
          .enabled(if: EPUBCheck.tool != nil,
                   "Java or epubcheck is absent (apt-get install epubcheck, which brings Java): epubcheck not run"))
    func epubcheckPasses() async throws {
        let tool = try #require(EPUBCheck.tool)
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let path = directory + "/book.epub"
        try EPUBExporter.write(Self.book, to: path)
        let (status, report) = try await EPUBCheck.run(path, tool: tool)
        #expect(status == 0, "epubcheck:\n\(report)")
        #expect(!report.contains("ERROR") && !report.contains("FATAL"), "epubcheck:\n\(report)")
        #expect(report.contains("No errors or warnings detected"), "epubcheck:\n\(report)")
    }

    @Test("a picture chapter's images go into the EPUB in order, copied from disk; files an EPUB cannot show are left out; epubcheck passes")
    func pictureChapters() async throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        // A valid 1×1 GIF.
        let gif: [UInt8] = Array("GIF89a".utf8) + [
            0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x21, 0xF9, 0x04, 0x01,
            0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x02, 0x02, 0x44,
            0x01, 0x00, 0x3B,
        ]
        try LocalFile.writeAtomically(Self.png, to: directory + "/p1.png")
        try LocalFile.writeAtomically(gif, to: directory + "/p2.gif")
        try LocalFile.writeAtomically(Array("ID3 not a picture".utf8), to: directory + "/a.mp3")
        #expect(ExportImage(path: directory + "/p1.png")?.mediaType == "image/png")
        #expect(ExportImage(path: directory + "/p2.gif")?.mediaType == "image/gif")
        #expect(ExportImage(path: directory + "/a.mp3") == nil)
        #expect(ExportImage(path: directory + "/missing.png") == nil)
        var book = Self.book
        book.chapters.append(ExportChapter(
            title: "第三话", text: "",
            images: [directory + "/p1.png", directory + "/p2.gif"].compactMap { ExportImage(path: $0) }))
        let path = directory + "/comic.epub"
        try EPUBExporter.write(book, to: path)
        let entries = try readZip(path)
        #expect(entries.first { $0.name == "OEBPS/images/chapter-0005-001.png" }?.bytes == Self.png)
        #expect(entries.first { $0.name == "OEBPS/images/chapter-0005-002.gif" }?.bytes == gif)
        let page = try #require(entries.first { $0.name == "OEBPS/text/chapter-0005.xhtml" }).text
        let first = try #require(page.range(of: "../images/chapter-0005-001.png"))
        let second = try #require(page.range(of: "../images/chapter-0005-002.gif"))
        #expect(first.lowerBound < second.lowerBound)
        let opf = try #require(entries.first { $0.name == "OEBPS/content.opf" }).text
        #expect(opf.contains("href=\"images/chapter-0005-002.gif\" media-type=\"image/gif\""))
        if let tool = EPUBCheck.tool {
            let (status, report) = try await EPUBCheck.run(path, tool: tool)
            #expect(status == 0, "epubcheck:\n\(report)")
            #expect(!report.contains("ERROR") && !report.contains("FATAL"), "epubcheck:\n\(report)")
        }
    }

    @Test("a cover the EPUB cannot carry (WebP, HTML, truncated) is left out, not mislabelled")
    func unusableCover() throws {
        var book = Self.book
        book.cover = ExportCover(bytes: Array("RIFF\0\0\0\0WEBPVP8 ".utf8), mediaType: "image/webp")
        #expect(book.cover?.epubMediaType == nil)
        let names = EPUBExporter.files(book, modified: "2024-01-01T00:00:00Z").map(\.name)
        #expect(!names.contains { $0.hasPrefix("OEBPS/images/") || $0 == "OEBPS/text/cover.xhtml" })
        #expect(ExportCover(bytes: TinyImages.jpeg).epubMediaType == "image/jpeg")
        #expect(ExportCover(bytes: Array(TinyImages.jpeg.dropLast(2))).epubMediaType == nil, "truncated")
        #expect(ExportCover(bytes: Array(Self.png.dropLast(12))).epubMediaType == nil, "truncated")
        #expect(ExportCover(bytes: Self.png).epubMediaType == "image/png")
    }

    @Test("images are judged by their structure: a file that only begins like a JPEG, PNG or GIF is refused")
    func imageStructure() throws {
        func problem(_ bytes: [UInt8]) -> String? { ExportCover(bytes: bytes).problem?.description }
        #expect(problem(TinyImages.jpeg) == nil)
        #expect(problem(TinyImages.gif) == nil)
        #expect(problem(Self.png) == nil)
        // A JPEG signature, then an error page, then an EOI: what epubcheck calls a corrupted image.
        let fake: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0<html>error</html>".utf8) + [0xFF, 0xD9]
        #expect(problem(fake)?.hasPrefix("a damaged JPEG image") == true)
        // No frame header before the scan, and a 0×1 frame.
        let noFrame: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x00, 0xFF, 0xD9]
        #expect(problem(noFrame) == "a damaged JPEG image (no frame header before the scan)")
        var zeroWidth = TinyImages.jpeg
        zeroWidth[TinyImages.jpegWidthOffset + 1] = 0
        #expect(problem(zeroWidth) == "a damaged JPEG image (the frame is 0×1)")
        // PNG: IHDR first, chunks to IEND.
        var badIHDR = Self.png
        badIHDR[12] = UInt8(ascii: "X")
        #expect(problem(badIHDR) == "a damaged PNG image (it does not start with IHDR)")
        #expect(problem(Array(Self.png.prefix(40)))?.hasPrefix("a damaged PNG image") == true)
        // GIF: dimensions and trailer.
        #expect(problem(Array(TinyImages.gif.dropLast())) == "a damaged GIF image (no trailer: the file is incomplete)")
        var emptyGIF = TinyImages.gif
        emptyGIF[6] = 0
        #expect(problem(emptyGIF) == "a damaged GIF image (the image is 0×1)")
        #expect(problem(Array("<html>".utf8)) == "not a JPEG, PNG or GIF image")
        // Files are checked the same way, reading only their headers.
        let directory = try scratchDirectory()
        try LocalFile.writeAtomically(fake, to: directory + "/fake.jpg")
        try LocalFile.writeAtomically(TinyImages.jpeg, to: directory + "/real.jpg")
        #expect(ExportImage(path: directory + "/fake.jpg") == nil)
        #expect(ExportImage(path: directory + "/real.jpg")?.mediaType == "image/jpeg")
    }

    @Test("identifiers are stable, distinct and urn:uuid-shaped; language tags are checked")
    func identifiers() {
        let first = ExportBook.identifier(sourceURL: "https://a.test/s.json", bookURL: "https://a.test/1")
        #expect(first == ExportBook.identifier(sourceURL: "https://a.test/s.json", bookURL: "https://a.test/1"))
        #expect(first != ExportBook.identifier(sourceURL: "https://a.test/s.json", bookURL: "https://a.test/2"))
        #expect(first != ExportBook.identifier(sourceURL: "https://a.test/s.json/", bookURL: "https://a.test/"))
        let uuid = first.dropFirst("urn:uuid:".count)
        #expect(first.hasPrefix("urn:uuid:"))
        #expect(uuid.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(uuid.allSatisfy { $0.isHexDigit || $0 == "-" })
        #expect(Array(uuid)[14] == "8")
        #expect("89ab".contains(Array(uuid)[19]))
        #expect(EPUBExporter.Layout.languageTag("zh_CN") == "zh-CN")
        #expect(EPUBExporter.Layout.languageTag("en") == "en")
        #expect(EPUBExporter.Layout.languageTag("\"><x") == "und")
        #expect(EPUBExporter.timestamp(0) == "1970-01-01T00:00:00Z")
    }

    @Test("a failed write leaves nothing behind and says why")
    func failedWrite() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        try FileManager.default.createDirectory(atPath: directory + "/taken.epub", withIntermediateDirectories: false)
        #expect(throws: ExportError.self) { try EPUBExporter.write(Self.book, to: directory + "/taken.epub") }
        #expect(throws: ExportError.self) { try TXTExporter.write(Self.book, to: directory + "/taken.epub") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["taken.epub"])
        do {
            try EPUBExporter.write(Self.book, to: directory + "/missing/book.epub")
            Issue.record("writing into a missing directory succeeded")
        } catch {
            #expect(error.description.contains("missing/book.epub"))
        }
    }

    // MARK: Safe file names

    @Test("titles become safe, non-empty file names inside the output directory",
          arguments: [String]([
              "../../etc/passwd", "A/B: <C>", "..", ".", "", "   ", "\u{0}\u{1}\u{7F}\n\t", "CON", "a\\b\\..\\c",
              "name\u{202E}gpj.exe", String(repeating: "星河彼岸", count: 80), ".hidden...", "…… 第一卷 ……",
          ]).map(Title.init))
    func safeNames(title argument: Title) throws {
        let title = argument.text
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        let name = SafeFileName.make(title, extension: "epub")
        #expect(!name.isEmpty)
        #expect(!name.contains("/") && !name.contains("\\") && !name.contains(".."))
        #expect(!name.hasPrefix(".") && !name.hasPrefix(" "))
        #expect(!name.unicodeScalars.contains { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
        #expect(!name.contains { "<>:\"|?*".contains($0) })
        #expect(name.hasSuffix(".epub"))
        #expect(name.dropLast(5).count <= SafeFileName.maxCharacters)
        #expect(name.dropLast(5).utf8.count <= SafeFileName.maxBytes)

        let path = try SafeFileName.path(in: directory + "/./", title: title, extension: "epub")
        let resolved = try #require(realpath(directory, nil))
        defer { free(resolved) }
        #expect(path == String(cString: resolved) + "/" + name)
        try EPUBExporter.write(ExportBook(title: title, chapters: [ExportChapter(title: "1", text: "x")]), to: path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [name])
    }

    @Test("expected file names for the issue's examples")
    func safeNameExamples() {
        #expect(SafeFileName.make("../../etc/passwd", extension: "epub") == "etc passwd.epub")
        #expect(SafeFileName.make("A/B: <C>", extension: "txt") == "A B C.txt")
        #expect(SafeFileName.make("", extension: "txt") == "book.txt")
        #expect(SafeFileName.make("..", extension: ".t/x*t") == "book.txt")
        #expect(SafeFileName.make("CON", extension: "txt") == "_CON.txt")
        #expect(SafeFileName.make("星河", extension: "") == "星河")
        #expect(SafeFileName.make(String(repeating: "星", count: 150), extension: "epub") == String(repeating: "星", count: 66) + ".epub")
    }

    @Test("the output directory must exist; symbolic links in it are resolved")
    func outputDirectory() throws {
        let directory = try temporaryDirectory()
        defer { removeTree(directory) }
        #expect(throws: ExportError.self) { try SafeFileName.path(in: directory + "/missing", title: "a", extension: "txt") }
        #expect(FileManager.default.createFile(atPath: directory + "/file", contents: Data()))
        #expect(throws: ExportError.self) { try SafeFileName.path(in: directory + "/file", title: "a", extension: "txt") }
        try FileManager.default.createDirectory(atPath: directory + "/real", withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory + "/link", withDestinationPath: directory + "/real")
        let path = try SafeFileName.path(in: directory + "/link/../link", title: "../x", extension: "txt")
        #expect(path.hasSuffix("/real/x.txt"))
        #expect(!SafeFileName.isDirectlyInside("/a/b/../c", directory: "/a/b"))
        #expect(!SafeFileName.isDirectlyInside("/a/bc", directory: "/a/b"))
        #expect(!SafeFileName.isDirectlyInside("/a/b/..", directory: "/a/b"))
        #expect(SafeFileName.isDirectlyInside("/x", directory: "/"))
    }
}

// MARK: - Helpers

/// A test argument shown escaped, so control characters don't reach the terminal.
struct Title: Sendable, CustomTestStringConvertible {
    let text: String
    var testDescription: String { text.debugDescription }
}

struct ZipEntry {
    let name: String
    let method: Int32
    let bytes: [UInt8]
    var text: String { String(decoding: bytes, as: UTF8.self) }
}

struct ZipReadError: Error, CustomStringConvertible {
    let description: String
}

/// Every entry of the archive at `path`, in central-directory order, read with libzip.
func readZip(_ path: String) throws -> [ZipEntry] {
    var code: Int32 = 0
    guard let archive = zip_open(path, ZIP_RDONLY, &code) else { throw ZipReadError(description: "zip_open: \(code)") }
    defer { zip_discard(archive) }
    var entries: [ZipEntry] = []
    for index in 0..<zip_uint64_t(max(0, zip_get_num_entries(archive, 0))) {
        var info = zip_stat_t()
        guard zip_stat_index(archive, index, 0, &info) == 0, let name = info.name,
              let file = zip_fopen_index(archive, index, 0) else {
            throw ZipReadError(description: String(cString: zip_strerror(archive)))
        }
        defer { zip_fclose(file) }
        var bytes = [UInt8](repeating: 0, count: Int(info.size))
        let count = bytes.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, zip_uint64_t($0.count)) }
        guard count == Int64(info.size) else { throw ZipReadError(description: "short read of \(String(cString: name))") }
        entries.append(ZipEntry(name: String(cString: name), method: Int32(info.comp_method), bytes: bytes))
    }
    return entries
}

private func temporaryDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/bookrule-export-XXXXXX").utf8CString)
    guard let created = mkdtemp(&template) else { throw ZipReadError(description: "mkdtemp failed") }
    return String(cString: created)
}

private func removeTree(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

@Suite("BookFetch keeps only a whole cover")
struct CoverFetchTests {
    func fetch(cover: [UInt8]) async throws -> (problem: CoverError?, kept: Bool) {
        let directory = try scratchDirectory()
        let store = try LibraryStore(path: directory + "/library.sqlite")
        let source = try loadSource(#"{"bookSourceUrl": "https://novel.test", "bookSourceName": "covers"}"#)
        let site = TestSite(["https://novel.test/cover.jpg": .init(headers: [HTTPHeader("Content-Type", "image/jpeg")], body: cover)])
        let record = BookSourceRecord(sourceURL: source.url, sourceName: source.name, json: "{}")
        let book = try store.upsertBook(source: record, info: BookInfo(
            url: "https://novel.test/book/1/", name: "书", author: "", intro: "", kind: "", lastChapter: "",
            updateTime: "", coverURL: "https://novel.test/cover.jpg", tocURL: "https://novel.test/book/1/", wordCount: "",
            variables: [:], warnings: []))
        let fetch = BookFetch(source: source, transport: site, store: store)
        let problem = await fetch.saveCover(of: book)
        let kept = FileManager.default.fileExists(atPath: store.coverPath(bookID: book.id))
        let export = try LibraryExport(book, store: store)
        #expect((export.book.cover != nil) == kept)
        return (problem, kept)
    }

    @Test("a cover that only begins like a JPEG is left out with a warning; a whole one is kept")
    func damagedCover() async throws {
        let fake: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF\0<html>error</html>".utf8) + [0xFF, 0xD9]
        let bad = try await fetch(cover: fake)
        #expect(!bad.kept)
        #expect(bad.problem?.description.hasPrefix("the cover https://novel.test/cover.jpg is a damaged JPEG image") == true)
        let good = try await fetch(cover: TinyImages.jpeg)
        #expect(good.kept && good.problem == nil)
    }
}
