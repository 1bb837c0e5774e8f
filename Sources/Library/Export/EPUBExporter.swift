import CLibZip
import BookRuleDocument
import BookRuleJSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// EPUB 3.0 export, written with libzip.
///
/// The archive holds, in order: `mimetype` (first, stored, no extra field), `META-INF/container.xml`,
/// `OEBPS/content.opf` (identifier, title, creator, language, description, source, `dcterms:modified`, the
/// cover image's `cover-image` property), `OEBPS/nav.xhtml` (the table of contents: chapters after a volume
/// heading are nested under it), `OEBPS/toc.ncx` (the same for EPUB 2 readers), `OEBPS/style.css`, the cover
/// image and its page when there is a usable cover (`OEBPS/images/cover.png|jpg|gif`,
/// `OEBPS/text/cover.xhtml`), a title page (`OEBPS/text/title.xhtml`: title, author, intro), and one
/// `OEBPS/text/chapter-0001.xhtml` per chapter or volume heading. Every text is XML-escaped and cleaned of
/// the characters XML 1.0 forbids; paragraphs become `<p>`. A text chapter's image line becomes the picture
/// (`OEBPS/images/picture-0001.png`, one file per distinct picture however many chapters show it) in a
/// `<div class="picture">` with alt text, or, when the library has no file for it, a `[图片] URL` paragraph. A book without chapters is refused
/// (`ExportError.noChapters`) rather than exported as an empty shell.
public enum EPUBExporter {
    /// Writes `book` as an EPUB 3.0 file at `path`, atomically: the archive is built in a temporary file in
    /// the same directory, flushed to disk and renamed over `path` only when complete.
    public static func write(_ book: ExportBook, to path: String) throws(ExportError) {
        guard book.chapters.contains(where: { !$0.isVolume }) else { throw .noChapters(title: book.title) }
        try writeArchive(files(book, modified: timestamp()), to: path)
    }

    /// One file of the EPUB container.
    struct File: Equatable {
        /// Path inside the archive.
        let name: String
        /// The file's bytes (empty when it is copied from `sourcePath`).
        let bytes: [UInt8]
        /// A file on disk to copy in when the archive is written, instead of `bytes`.
        let sourcePath: String?
        /// Whether to deflate it (everything except `mimetype` and images).
        let isCompressed: Bool

        init(_ name: String, _ text: String, isCompressed: Bool = true) {
            self.init(name, Array(text.utf8), isCompressed: isCompressed)
        }

        init(_ name: String, _ bytes: [UInt8], isCompressed: Bool = true) {
            self.name = name
            self.bytes = bytes
            self.sourcePath = nil
            self.isCompressed = isCompressed
        }

        init(_ name: String, copying path: String) {
            self.name = name
            self.bytes = []
            self.sourcePath = path
            self.isCompressed = false
        }
    }

    /// Every file of the EPUB for `book`, in archive order; `modified` is the `dcterms:modified` value.
    static func files(_ book: ExportBook, modified: String) -> [File] {
        let layout = Layout(book)
        var files = [
            File("mimetype", "application/epub+zip", isCompressed: false),
            File("META-INF/container.xml", containerXML),
            File("OEBPS/content.opf", packageDocument(layout, modified: modified)),
            File("OEBPS/nav.xhtml", navigationDocument(layout)),
            File("OEBPS/toc.ncx", ncx(layout)),
            File("OEBPS/style.css", styleSheet),
        ]
        if let cover = layout.cover {
            files.append(File("OEBPS/" + cover.imageHref, cover.bytes, isCompressed: false))
            files.append(File("OEBPS/text/cover.xhtml", coverPage(layout, image: cover)))
        }
        files.append(File("OEBPS/text/title.xhtml", titlePage(layout)))
        for page in layout.pages {
            files.append(File("OEBPS/" + page.href, chapterPage(layout, page)))
            for image in page.images { files.append(File("OEBPS/" + image.href, copying: image.path)) }
        }
        for picture in layout.pictures { files.append(File("OEBPS/" + picture.href, copying: picture.path)) }
        return files
    }

    // MARK: - Layout

    /// What the documents are built from: cleaned metadata and one page per chapter.
    struct Layout {
        struct Page {
            let id: String
            let href: String
            let title: String
            let paragraphs: [String]
            let isVolume: Bool
            let images: [Image]
            /// The pictures of the text's image lines that have a file, by URL (shared across pages).
            let pictures: [String: Image]
        }

        /// A chapter's picture: where it goes in the book, and the file it comes from.
        struct Image {
            let id: String
            let href: String
            let mediaType: String
            let path: String
        }

        struct Cover {
            let bytes: [UInt8]
            let mediaType: String
            let imageHref: String
        }

        /// A table-of-contents entry: a page and, for a volume heading, the chapters under it.
        struct Entry {
            let page: Page
            var children: [Page]
        }

        let labels: ExportLabels
        let title: String
        let author: String
        let intro: [String]
        let language: String
        let identifier: String
        let source: String
        let cover: Cover?
        let pages: [Page]
        let tree: [Entry]
        /// Every picture of the chapters' text, once each however many chapters show it, in reading order.
        let pictures: [Image]

        init(_ book: ExportBook) {
            labels = ExportLabels(language: book.language)
            let title = ExportText.line(book.title)
            self.title = title.isEmpty ? labels.untitledBook : title
            author = ExportText.line(book.author)
            intro = ExportText.paragraphs(book.intro)
            language = Self.languageTag(book.language)
            let identifier = ExportText.line(book.identifier)
            self.identifier = identifier.isEmpty
                ? ExportBook.identifier(sourceURL: book.sourceURL, bookURL: book.bookURL) : identifier
            source = ExportText.line(book.bookURL)
            if let cover = book.cover, let mediaType = cover.epubMediaType, let fileExtension = cover.fileExtension {
                self.cover = Cover(bytes: cover.bytes, mediaType: mediaType, imageHref: "images/cover.\(fileExtension)")
            } else {
                self.cover = nil
            }
            var pages: [Page] = []
            var pictures: [Image] = []
            var pictureByURL: [String: Image] = [:]
            var chapterNumber = 0
            for (index, chapter) in book.chapters.enumerated() {
                if !chapter.isVolume { chapterNumber += 1 }
                let id = "chapter-" + Self.zeroPadded(index + 1, width: 4)
                let title = ExportText.line(chapter.title)
                let images = chapter.images.enumerated().map { number, image in
                    let name = id + "-" + Self.zeroPadded(number + 1, width: 3)
                    return Image(id: "image-" + name, href: "images/\(name).\(image.fileExtension)",
                                 mediaType: image.mediaType, path: image.path)
                }
                var pagePictures: [String: Image] = [:]
                for line in ImageLine.all(in: chapter.text) where pagePictures[line.url] == nil {
                    guard let file = chapter.pictures[line.url] else { continue }
                    if let known = pictureByURL[line.url] {
                        pagePictures[line.url] = known
                        continue
                    }
                    let name = "picture-" + Self.zeroPadded(pictures.count + 1, width: 4)
                    let picture = Image(id: name, href: "images/\(name).\(file.fileExtension)",
                                        mediaType: file.mediaType, path: file.path)
                    pictures.append(picture)
                    pictureByURL[line.url] = picture
                    pagePictures[line.url] = picture
                }
                pages.append(Page(id: id, href: "text/\(id).xhtml",
                                  title: title.isEmpty ? labels.untitledChapter(max(chapterNumber, 1)) : title,
                                  paragraphs: ExportText.paragraphs(chapter.text), isVolume: chapter.isVolume,
                                  images: images, pictures: pagePictures))
            }
            self.pages = pages
            self.pictures = pictures
            var tree: [Entry] = []
            for page in pages {
                if !page.isVolume, let last = tree.indices.last, tree[last].page.isVolume {
                    tree[last].children.append(page)
                } else {
                    tree.append(Entry(page: page, children: []))
                }
            }
            self.tree = tree
        }

        /// `language` as a well-formed BCP 47 tag (`zh_CN` → `zh-CN`), `und` when it is not one.
        static func languageTag(_ language: String) -> String {
            let tag = language.trimmingASCIISpaces().replacingUnderscores()
            let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
            guard let primary = subtags.first, (2...8).contains(primary.count),
                  primary.unicodeScalars.allSatisfy({ $0.isASCII && $0.properties.isAlphabetic }),
                  subtags.dropFirst().allSatisfy({ subtag in
                      (1...8).contains(subtag.count)
                          && subtag.unicodeScalars.allSatisfy { $0.isASCII && $0.properties.isAlphabetic || ("0"..."9").contains($0) }
                  })
            else { return "und" }
            return tag
        }

        static func zeroPadded(_ number: Int, width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
    }

    // MARK: - Documents

    static let containerXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles>
            <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
          </rootfiles>
        </container>

        """

    static let styleSheet = """
        body { margin: 0 0.5em; line-height: 1.6; }
        h1 { font-size: 1.4em; text-align: center; margin: 1em 0; }
        h1.volume { font-size: 1.8em; margin-top: 30%; }
        h1.title { font-size: 2em; margin-top: 20%; }
        p { text-indent: 2em; margin: 0.4em 0; }
        p.author { text-indent: 0; text-align: center; margin-bottom: 2em; }
        div.cover { text-align: center; height: 100%; }
        div.cover img { max-width: 100%; max-height: 100%; }
        div.picture { text-align: center; margin: 0.5em 0; }
        div.picture img { max-width: 100%; }
        p.picture-link { text-indent: 0; font-size: 0.8em; word-break: break-all; }

        """

    static func packageDocument(_ layout: Layout, modified: String) -> String {
        var metadata = [
            "<dc:identifier id=\"book-id\">\(XMLText.escaped(layout.identifier))</dc:identifier>",
            "<dc:title>\(XMLText.escaped(layout.title))</dc:title>",
        ]
        if !layout.author.isEmpty { metadata.append("<dc:creator id=\"creator\">\(XMLText.escaped(layout.author))</dc:creator>") }
        metadata.append("<dc:language>\(layout.language)</dc:language>")
        if !layout.intro.isEmpty {
            metadata.append("<dc:description>\(XMLText.escaped(layout.intro.joined(separator: "\n")))</dc:description>")
        }
        if !layout.source.isEmpty { metadata.append("<dc:source>\(XMLText.escaped(layout.source))</dc:source>") }
        metadata.append("<meta property=\"dcterms:modified\">\(modified)</meta>")
        var manifest = [
            "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>",
            "<item id=\"ncx\" href=\"toc.ncx\" media-type=\"application/x-dtbncx+xml\"/>",
            "<item id=\"css\" href=\"style.css\" media-type=\"text/css\"/>",
        ]
        var spine: [String] = []
        if let cover = layout.cover {
            metadata.append("<meta name=\"cover\" content=\"cover-image\"/>")
            manifest.append("<item id=\"cover-image\" href=\"\(cover.imageHref)\" media-type=\"\(cover.mediaType)\" properties=\"cover-image\"/>")
            manifest.append("<item id=\"cover-page\" href=\"text/cover.xhtml\" media-type=\"application/xhtml+xml\"/>")
            spine.append("<itemref idref=\"cover-page\"/>")
        }
        manifest.append("<item id=\"title-page\" href=\"text/title.xhtml\" media-type=\"application/xhtml+xml\"/>")
        spine.append("<itemref idref=\"title-page\"/>")
        for page in layout.pages {
            manifest.append("<item id=\"\(page.id)\" href=\"\(page.href)\" media-type=\"application/xhtml+xml\"/>")
            for image in page.images {
                manifest.append("<item id=\"\(image.id)\" href=\"\(image.href)\" media-type=\"\(image.mediaType)\"/>")
            }
            spine.append("<itemref idref=\"\(page.id)\"/>")
        }
        for picture in layout.pictures {
            manifest.append("<item id=\"\(picture.id)\" href=\"\(picture.href)\" media-type=\"\(picture.mediaType)\"/>")
        }
        func indented(_ lines: [String]) -> String { lines.map { "    " + $0 }.joined(separator: "\n") }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="book-id" xml:lang="\(layout.language)">
              <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
            \(indented(metadata))
              </metadata>
              <manifest>
            \(indented(manifest))
              </manifest>
              <spine toc="ncx">
            \(indented(spine))
              </spine>
            </package>

            """
    }

    static func navigationDocument(_ layout: Layout) -> String {
        var lines: [String] = []
        for entry in layout.tree {
            let link = "<a href=\"\(entry.page.href)\">\(XMLText.escaped(entry.page.title))</a>"
            if entry.children.isEmpty {
                lines.append("<li>\(link)</li>")
            } else {
                lines.append("<li>\(link)")
                lines.append("  <ol>")
                for child in entry.children {
                    lines.append("    <li><a href=\"\(child.href)\">\(XMLText.escaped(child.title))</a></li>")
                }
                lines.append("  </ol>")
                lines.append("</li>")
            }
        }
        let body = """
              <nav epub:type="toc" id="toc">
                <h1>\(XMLText.escaped(layout.labels.contents))</h1>
                <ol>
            \(lines.map { "      " + $0 }.joined(separator: "\n"))
                </ol>
              </nav>
            """
        return xhtml(layout, title: layout.labels.contents, styleSheet: "style.css", body: body)
    }

    static func ncx(_ layout: Layout) -> String {
        var lines: [String] = []
        var order = 0
        func point(_ page: Page, indent: String, close: Bool) {
            order += 1
            lines.append("\(indent)<navPoint id=\"nav-\(page.id)\" playOrder=\"\(order)\">")
            lines.append("\(indent)  <navLabel><text>\(XMLText.escaped(page.title))</text></navLabel>")
            lines.append("\(indent)  <content src=\"\(page.href)\"/>")
            if close { lines.append("\(indent)</navPoint>") }
        }
        for entry in layout.tree {
            point(entry.page, indent: "    ", close: false)
            for child in entry.children { point(child, indent: "      ", close: true) }
            lines.append("    </navPoint>")
        }
        let depth = layout.tree.contains { !$0.children.isEmpty } ? 2 : 1
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1" xml:lang="\(layout.language)">
              <head>
                <meta name="dtb:uid" content="\(XMLText.escaped(layout.identifier))"/>
                <meta name="dtb:depth" content="\(depth)"/>
                <meta name="dtb:totalPageCount" content="0"/>
                <meta name="dtb:maxPageNumber" content="0"/>
              </head>
              <docTitle><text>\(XMLText.escaped(layout.title))</text></docTitle>
              <navMap>
            \(lines.joined(separator: "\n"))
              </navMap>
            </ncx>

            """
    }

    typealias Page = Layout.Page

    static func coverPage(_ layout: Layout, image: Layout.Cover) -> String {
        let body = """
              <div class="cover" epub:type="cover">
                <img src="../\(image.imageHref)" alt="\(XMLText.escaped(layout.title))"/>
              </div>
            """
        return xhtml(layout, title: layout.labels.cover, styleSheet: "../style.css", body: body)
    }

    static func titlePage(_ layout: Layout) -> String {
        var lines = ["<h1 class=\"title\">\(XMLText.escaped(layout.title))</h1>"]
        if !layout.author.isEmpty { lines.append("<p class=\"author\">\(XMLText.escaped(layout.author))</p>") }
        lines.append(contentsOf: layout.intro.map { "<p>\(XMLText.escaped($0))</p>" })
        let body = """
              <section epub:type="titlepage">
            \(lines.map { "    " + $0 }.joined(separator: "\n"))
              </section>
            """
        return xhtml(layout, title: layout.title, styleSheet: "../style.css", body: body)
    }

    static func chapterPage(_ layout: Layout, _ page: Page) -> String {
        let heading = page.isVolume
            ? "<h1 class=\"volume\">\(XMLText.escaped(page.title))</h1>" : "<h1>\(XMLText.escaped(page.title))</h1>"
        let pictures = page.images.enumerated().map { number, image in
            "<div class=\"picture\"><img src=\"../\(image.href)\" alt=\"\(XMLText.escaped(page.title)) \(number + 1)\"/></div>"
        }
        var shown = 0
        let text = page.paragraphs.map { paragraph -> String in
            guard let line = ImageLine(line: paragraph) else { return "<p>\(XMLText.escaped(paragraph))</p>" }
            guard let picture = page.pictures[line.url] else {
                return "<p class=\"picture-link\">\(XMLText.escaped(layout.labels.pictureLink(line.url)))</p>"
            }
            shown += 1
            let alt = "\(page.title) \(layout.labels.picture) \(shown)"
            return "<div class=\"picture\"><img src=\"../\(picture.href)\" alt=\"\(XMLText.escaped(alt))\"/></div>"
        }
        let lines = [heading] + text + pictures
        let body = """
              <section epub:type="\(page.isVolume ? "part" : "chapter")">
            \(lines.map { "    " + $0 }.joined(separator: "\n"))
              </section>
            """
        return xhtml(layout, title: page.title, styleSheet: "../style.css", body: body)
    }

    static func xhtml(_ layout: Layout, title: String, styleSheet: String, body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE html>
        <html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" lang="\(layout.language)" xml:lang="\(layout.language)">
          <head>
            <title>\(XMLText.escaped(title))</title>
            <link rel="stylesheet" type="text/css" href="\(styleSheet)"/>
          </head>
          <body>
        \(body)
          </body>
        </html>

        """
    }

    /// The current UTC time as `dcterms:modified` wants it (`2024-05-01T12:00:00Z`).
    static func timestamp(_ seconds: Int = Int(time(nil))) -> String {
        var now = time_t(seconds)
        var parts = tm()
        _ = gmtime_r(&now, &parts)
        let pad = Layout.zeroPadded
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))"
            + "T\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))Z"
    }

    // MARK: - Writing the archive

    /// Builds the archive with libzip in a temporary file next to `path` and puts it in place atomically
    /// (`LocalFile.replaceAtomically`).
    static func writeArchive(_ files: [File], to path: String) throws(ExportError) {
        do throws(LocalFile.Failure) {
            try LocalFile.replaceAtomically(path) { (temporary) throws(LocalFile.Failure) in
                do throws(ZipWriter.Failure) {
                    try ZipWriter.write(files, to: temporary)
                } catch {
                    throw LocalFile.Failure(path: path, reason: error.reason)
                }
            }
        } catch {
            throw .cannotWrite(path: path, reason: error.reason)
        }
    }

    fileprivate static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}

/// The few libzip calls the export needs.
private enum ZipWriter {
    struct Failure: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Creates a new archive at `path` (which must not exist) holding `files` in order.
    static func write(_ files: [EPUBExporter.File], to path: String) throws(Failure) {
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_EXCL, &code) else {
            throw Failure("libzip cannot create the archive: " + message(code: code))
        }
        do throws(Failure) {
            for file in files { try add(file, to: archive) }
        } catch {
            zip_discard(archive)
            throw error
        }
        guard zip_close(archive) == 0 else {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw Failure("libzip cannot write the archive: " + reason)
        }
    }

    private static func add(_ file: EPUBExporter.File, to archive: OpaquePointer) throws(Failure) {
        let source: OpaquePointer
        if let path = file.sourcePath {
            // Read by libzip at zip_close, in pieces: a comic's pictures never sit in memory together.
            guard let fileSource = zip_source_file(archive, path, 0, -1) else {
                throw Failure("libzip: \(path): " + String(cString: zip_strerror(archive)))
            }
            source = fileSource
        } else {
            // libzip reads the data only at zip_close, so it gets its own copy, which it frees (freep = 1).
            guard let buffer = malloc(max(file.bytes.count, 1)) else { throw Failure("out of memory") }
            file.bytes.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) }
            }
            guard let bufferSource = zip_source_buffer(archive, buffer, zip_uint64_t(file.bytes.count), 1) else {
                free(buffer)
                throw Failure("libzip: \(file.name): " + String(cString: zip_strerror(archive)))
            }
            source = bufferSource
        }
        let index = zip_file_add(archive, file.name, source, 0)
        guard index >= 0 else {
            zip_source_free(source)
            throw Failure("libzip: \(file.name): " + String(cString: zip_strerror(archive)))
        }
        let entry = zip_uint64_t(index)
        let method = file.isCompressed ? ZIP_CM_DEFLATE : ZIP_CM_STORE
        guard zip_set_file_compression(archive, entry, method, 0) == 0,
              zip_file_extra_field_delete(archive, entry, bookrule_zip_extra_field_all(),
                                           zip_flags_t(ZIP_FL_LOCAL | ZIP_FL_CENTRAL)) >= 0
        else {
            throw Failure("libzip: \(file.name): " + String(cString: zip_strerror(archive)))
        }
    }

    private static func message(code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        bookrule_zip_error_message(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

private extension String {
    func trimmingASCIISpaces() -> String {
        let characters = Array(self)
        guard let first = characters.firstIndex(where: { $0 != " " && $0 != "\t" }),
              let last = characters.lastIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        return String(characters[first...last])
    }

    func replacingUnderscores() -> String {
        String(map { $0 == "_" ? "-" : $0 })
    }
}
