@testable import BookRuleEngine
import BookRuleJSON
import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: the OPDS catalog (feeds, files, access, search)", .timeLimit(.minutes(3 * TestTime.scale)))
struct OPDSCatalogTests {
    static let navigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    static let acquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"

    /// GETs `target` and parses the answer as XML, which must be well-formed.
    static func document(_ workspace: ServeWorkspace, _ target: String, headers: [(String, String)] = []) async throws
        -> (RawHTTP.Response, OPDSDocument.Element) {
        let response = try await workspace.client.send("GET", target, headers: headers)
        guard response.status == 200 else { throw TestFailure("\(target): \(response.status) \(response.text)") }
        return (response, try OPDSDocument(response.body).root)
    }

    /// Books named `Book NN` added straight to the library, with kinds, so feeds can page.
    static func addBooks(_ count: Int, to workspace: ServeWorkspace) throws {
        let source = BookSourceRecord(sourceURL: workspace.site.baseURL, sourceName: "mirror", json: "{}")
        for number in 1...count {
            let info = BookInfo(url: workspace.site.baseURL + "/shelf-book/\(number)", name: String(format: "Book %02d", number),
                                author: "Writer \(number % 3)", intro: "Intro \(number)",
                                kind: number % 2 == 0 ? "玄幻, 都市" : "历史", lastChapter: "", updateTime: "", coverURL: "",
                                tocURL: "", wordCount: "", variables: [:], warnings: [])
            _ = try workspace.store.upsertBook(source: source, info: info)
        }
    }

    @Test("The root is a navigation feed: recently read, recently updated, by kind, all books, with self, start and two searches")
    func root() async throws {
        let workspace = try await ServeWorkspace(chapters: 3, saved: 3)
        let (response, feed) = try await Self.document(workspace, "/opds")
        #expect(response.header("Content-Type")?.hasPrefix(Self.navigation) == true)
        #expect(feed.namespace == OPDSDocument.atom && feed.name == "feed")
        #expect(feed.atomText("id")?.hasPrefix("urn:") == true)
        #expect(feed.atomText("title")?.isEmpty == false)
        #expect(feed.atomText("updated").flatMap { try? Date($0, strategy: .iso8601) } != nil)
        #expect(feed.link("self")?.href == "/opds" && feed.link("self")?.type == Self.navigation)
        #expect(feed.link("start")?.href == "/opds")
        let searches = feed.links.filter { $0.rel == "search" }
        #expect(searches.map(\.href) == ["/opds/search.xml", "/opds/sources/search.xml"])
        #expect(searches.allSatisfy { $0.type == "application/opensearchdescription+xml" })
        let entries = feed.atom("entry")
        #expect(entries.map { $0.atomText("title") ?? "" } == ["Recently read", "Recently updated", "By kind", "All books"])
        #expect(entries.map { $0.links.first?.href ?? "" } == ["/opds/recent", "/opds/updated", "/opds/kinds", "/opds/all"])
        #expect(entries.map { $0.links.first?.type ?? "" } == [Self.acquisition, Self.acquisition, Self.navigation, Self.acquisition])
        // Every navigation entry has an id, an updated date and content (Atom wants content or an alternate link).
        #expect(entries.allSatisfy { $0.atomText("id")?.hasPrefix("urn:") == true && $0.atomText("updated") != nil && $0.atomText("content") != nil })
        // Other methods are refused; a page the catalog does not have is a 404 in words.
        #expect(try await workspace.client.send("POST", "/opds", headers: [("Origin", "http://\(workspace.host)")], body: "x").status == 405)
        let missing = try await workspace.client.send("GET", "/opds/nothing")
        #expect(missing.status == 404 && missing.text.contains("/opds"))
    }

    @Test("A client walks root → all books → entry → EPUB, which holds every chapter and passes epubcheck; TXT too")
    func walkToEPUB() async throws {
        let workspace = try await ServeWorkspace(chapters: 4, saved: 4)
        let (_, root) = try await Self.document(workspace, "/opds")
        let all = try requireValue(root.atom("entry").first { $0.atomText("title") == "All books" }?.links.first, "no All books")
        let (feedResponse, feed) = try await Self.document(workspace, all.href)
        #expect(feedResponse.header("Content-Type")?.hasPrefix(Self.acquisition) == true)
        let entry = try requireValue(feed.atom("entry").first { $0.atomText("title") == MirrorSite.bookName }, "the book is not listed")
        #expect(entry.atomText("id") == "urn:bookrule:book:\(workspace.book.id)")
        #expect(entry.atom("author").first?.atomText("name") == MirrorSite.author)
        #expect(entry.atomText("updated") != nil)
        // Every chapter is saved: the summary says nothing is missing.
        #expect(entry.atomText("summary")?.contains("saved") != true)
        // The entry's own document, then its EPUB link.
        let alternate = try requireValue(entry.link("alternate"), "no alternate link")
        #expect(alternate.type == "application/atom+xml;type=entry;profile=opds-catalog")
        let (_, lone) = try await Self.document(workspace, alternate.href)
        #expect(lone.name == "entry" && lone.atomText("id") == entry.atomText("id"))
        let epubLink = try requireValue(lone.link("http://opds-spec.org/acquisition", type: "application/epub+zip"), "no EPUB link")
        #expect(lone.link("http://opds-spec.org/acquisition", type: "text/plain") != nil)
        let epub = try await workspace.client.send("GET", epubLink.href)
        #expect(epub.status == 200)
        #expect(epub.header("Content-Type") == "application/epub+zip")
        #expect(epub.header("ETag")?.hasPrefix("\"") == true)
        #expect(epub.header("Last-Modified")?.hasSuffix("GMT") == true)
        #expect(epub.header("Content-Length") == String(epub.body.count))
        #expect(epub.header("Content-Disposition") == "attachment; filename=\"book-\(workspace.book.id).epub\"; filename*=UTF-8''"
                + MirrorSite.bookName.utf8.map { String(format: "%%%02X", $0) }.joined() + ".epub")
        #expect(Array(epub.body.prefix(2)) == Array("PK".utf8))
        let path = workspace.directory.path + "/walk.epub"
        try Data(epub.body).write(to: URL(fileURLWithPath: path))
        let chapters = try await OPDSTools.zipNames(path).filter { $0.hasPrefix("OEBPS/text/chapter-") }
        #expect(chapters.count == 4, "\(chapters)")
        if let tool = EPUBCheck.tool {
            let (status, report) = try await EPUBCheck.run(path, tool: tool)
            #expect(status == 0 && report.contains("No errors or warnings detected"), "epubcheck:\n\(report)")
        } else {
            print("epubcheck skipped: Java or epubcheck is absent (apt-get install epubcheck)")
        }
        let txtLink = try requireValue(lone.link("http://opds-spec.org/acquisition", type: "text/plain"), "no TXT link")
        let txt = try await workspace.client.send("GET", txtLink.href)
        #expect(txt.status == 200 && txt.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(txt.text.contains(MirrorSite.bookName) && txt.text.contains(MirrorSite.paragraphs(4)[0]))
    }

    @Test("The EPUB is kept by content: ETag, 304 on If-None-Match, HEAD, Range 206 and 416, If-Range; a new chapter makes a new file")
    func conditionalAndRanges() async throws {
        let workspace = try await ServeWorkspace(chapters: 4, saved: 2)
        let target = "/opds/books/\(workspace.book.id).epub"
        let first = try await workspace.client.send("GET", target)
        #expect(first.status == 200)
        let tag = try requireValue(first.header("ETag"), "no ETag")
        let size = first.body.count
        // Asked again: the same file, no new export.
        let again = try await workspace.client.send("GET", target)
        #expect(again.header("ETag") == tag && again.body == first.body)
        let cache = workspace.directory.path + "/opds-cache"
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".epub") }.count == 1)
        #expect(try await workspace.client.send("GET", target, headers: [("If-None-Match", tag)]).status == 304)
        #expect(try await workspace.client.send("GET", target, headers: [("If-None-Match", "\"other\"")]).status == 200)
        let since = try requireValue(first.header("Last-Modified"), "no Last-Modified")
        #expect(try await workspace.client.send("GET", target, headers: [("If-Modified-Since", since)]).status == 304)
        // HEAD: the headers of the GET, no body.
        let head = try await workspace.client.send("HEAD", target)
        #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(size) && head.header("ETag") == tag)
        #expect(head.header("Accept-Ranges") == "bytes")
        // Ranges, as a reader resuming a download asks them.
        let part = try await workspace.client.send("GET", target, headers: [("Range", "bytes=100-199")])
        #expect(part.status == 206 && part.header("Content-Range") == "bytes 100-199/\(size)")
        #expect(part.body == Array(first.body[100..<200]))
        let tail = try await workspace.client.send("GET", target, headers: [("Range", "bytes=\(size - 10)-"), ("If-Range", tag)])
        #expect(tail.status == 206 && tail.body == Array(first.body[(size - 10)...]))
        let suffix = try await workspace.client.send("GET", target, headers: [("Range", "bytes=-5")])
        #expect(suffix.status == 206 && suffix.body == Array(first.body[(size - 5)...]))
        let past = try await workspace.client.send("GET", target, headers: [("Range", "bytes=\(size)-")])
        #expect(past.status == 416 && past.header("Content-Range") == "bytes */\(size)")
        // If-Range naming another version: the whole file.
        let changed = try await workspace.client.send("GET", target, headers: [("Range", "bytes=0-9"), ("If-Range", "\"older\"")])
        #expect(changed.status == 200 && changed.body.count == size)
        // Several ranges, or nonsense: the whole file (a server may ignore Range).
        #expect(try await workspace.client.send("GET", target, headers: [("Range", "bytes=0-1,5-6")]).status == 200)
        #expect(try await workspace.client.send("GET", target, headers: [("Range", "bytes=9-2")]).status == 200)

        // A third chapter saved (a reader opens it): a new file with a new tag, the old one gone, and with it
        // the file of a book the library no longer has.
        let orphan = cache + "/999999-0123456789abcdef.epub"
        try Data("PK".utf8).write(to: URL(fileURLWithPath: orphan))
        let opened = try await workspace.get("/getBookContent?url=\(ServeWorkspace.encoded(workspace.book.url))&index=2")
        #expect(opened["isSuccess"]?.value == .bool(true))
        let grown = try await workspace.client.send("GET", target)
        #expect(grown.status == 200 && grown.header("ETag") != tag && grown.body.count > size)
        #expect(try await workspace.client.send("GET", target, headers: [("If-None-Match", tag)]).status == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".epub") }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan))
    }

    @Test("A book with chapters not saved says so in its summary; a book with none gets a 404 that says why")
    func unsavedChapters() async throws {
        let workspace = try await ServeWorkspace(chapters: 5, saved: 2)
        let (_, feed) = try await Self.document(workspace, "/opds/all")
        let entry = try requireValue(feed.atom("entry").first, "no entry")
        #expect(entry.atomText("summary")?.contains("2 of 5 chapters are saved") == true, "\(entry.atomText("summary") ?? "")")
        try Self.addBooks(1, to: workspace)
        let empty = try requireValue(try workspace.store.books().first { $0.name == "Book 01" }, "no Book 01")
        let (_, all) = try await Self.document(workspace, "/opds/all")
        let emptyEntry = try requireValue(all.atom("entry").first { $0.atomText("title") == "Book 01" }, "Book 01 not listed")
        #expect(emptyEntry.atomText("summary")?.contains("No chapter is saved yet") == true)
        let refused = try await workspace.client.send("GET", "/opds/books/\(empty.id).epub")
        #expect(refused.status == 404 && refused.text.contains("no chapter of Book 01 is saved yet"))
        #expect(try await workspace.client.send("GET", "/opds/books/999999.epub").status == 404)
        #expect(try await workspace.client.send("GET", "/opds/books/x.epub").status == 404)
    }

    @Test("Feeds page at 50 with next, previous, first and last; kinds lead to their books; escaping survives")
    func pagingKindsEscaping() async throws {
        let workspace = try await ServeWorkspace(chapters: 2, saved: 2)
        try Self.addBooks(60, to: workspace)
        let source = BookSourceRecord(sourceURL: workspace.site.baseURL, sourceName: "mirror", json: "{}")
        let tricky = "A & B <C> \"D\" 'E'"
        _ = try workspace.store.upsertBook(source: source, info: BookInfo(
            url: workspace.site.baseURL + "/tricky", name: tricky, author: "<script>", intro: "</summary><x>&amp;\u{1}",
            kind: "a&b", lastChapter: "", updateTime: "", coverURL: "", tocURL: "", wordCount: "", variables: [:], warnings: []))
        let (_, first) = try await Self.document(workspace, "/opds/all")
        #expect(first.atom("entry").count == 50)
        let total = first.children.first { $0.name == "totalResults" }?.text
        #expect(total == "62")
        #expect(first.link("previous") == nil)
        let next = try requireValue(first.link("next"), "no next link")
        #expect(next.type == Self.acquisition && next.href == "/opds/all?page=2")
        #expect(first.link("last")?.href == "/opds/all?page=2" && first.link("first")?.href == "/opds/all")
        #expect(first.link("up")?.href == "/opds" && first.link("start")?.href == "/opds")
        let (_, second) = try await Self.document(workspace, next.href)
        #expect(second.atom("entry").count == 12)
        #expect(second.link("next") == nil && second.link("previous")?.href == "/opds/all")
        #expect(second.link("self")?.href == "/opds/all?page=2")
        let ids = (first.atom("entry") + second.atom("entry")).compactMap { $0.atomText("id") }
        #expect(Set(ids).count == 62)
        #expect(try await workspace.client.send("GET", "/opds/all?page=3").status == 400)
        #expect(try await workspace.client.send("GET", "/opds/all?page=0").status == 400)

        // The tricky book's fields come back as they were (the XML parsed, so they were escaped).
        let trickyEntry = try requireValue((first.atom("entry") + second.atom("entry")).first { $0.atomText("title") == tricky }, "tricky not listed")
        #expect(trickyEntry.atom("author").first?.atomText("name") == "<script>")
        #expect(trickyEntry.atomText("summary")?.hasPrefix("</summary><x>&amp;") == true)
        #expect(trickyEntry.atom("category").first?.attributes["term"] == "a&b")

        // Kinds: a navigation feed of every kind, each leading to its books.
        let (kindsResponse, kinds) = try await Self.document(workspace, "/opds/kinds")
        #expect(kindsResponse.header("Content-Type")?.hasPrefix(Self.navigation) == true)
        let names = kinds.atom("entry").compactMap { $0.atomText("title") }
        #expect(Set(names) == ["玄幻", "都市", "历史", "a&b"])
        let history = try requireValue(kinds.atom("entry").first { $0.atomText("title") == "历史" }?.links.first, "no 历史")
        #expect(history.type == Self.acquisition)
        let (_, historyFeed) = try await Self.document(workspace, history.href)
        let historyEntries = historyFeed.atom("entry")
        #expect(historyEntries.count == 30)
        #expect(historyEntries.allSatisfy { $0.atom("category").compactMap { $0.attributes["term"] } == ["历史"] })
        #expect(historyFeed.link("up")?.href == "/opds/kinds")

        // Recently read: only books read, the last read first; recently updated lists every book.
        let books = try workspace.store.books()
        let read = try requireValue(books.first { $0.name == "Book 07" }, "no Book 07")
        try workspace.store.saveProgress(bookID: workspace.book.id, ReadingProgress(chapterIndex: 0, chapterPosition: 0, chapterTitle: "1", readAt: Date(timeIntervalSince1970: 1_000_000)))
        try workspace.store.saveProgress(bookID: read.id, ReadingProgress(chapterIndex: 0, chapterPosition: 0, chapterTitle: "1", readAt: Date(timeIntervalSince1970: 2_000_000)))
        let (_, recent) = try await Self.document(workspace, "/opds/recent")
        #expect(recent.atom("entry").compactMap { $0.atomText("title") } == ["Book 07", MirrorSite.bookName])
        let (_, updated) = try await Self.document(workspace, "/opds/updated")
        #expect(updated.children.first { $0.name == "totalResults" }?.text == "62")
    }

    @Test("OpenSearch over the shelf: the description's template finds a book by name and by author")
    func shelfSearch() async throws {
        let workspace = try await ServeWorkspace(chapters: 2, saved: 2)
        let description = try await workspace.client.send("GET", "/opds/search.xml")
        #expect(description.status == 200 && description.header("Content-Type")?.hasPrefix("application/opensearchdescription+xml") == true)
        let root = try OPDSDocument(description.body).root
        #expect(root.name == "OpenSearchDescription" && root.namespace == "http://a9.com/-/spec/opensearch/1.1/")
        let url = try requireValue(root.children.first { $0.name == "Url" && $0.attributes["type"] == Self.acquisition }, "no Url")
        let template = try requireValue(url.attributes["template"], "no template")
        let base = "http://\(workspace.host)"
        #expect(template == base + "/opds/search?q={searchTerms}")
        for words in [MirrorSite.bookName, MirrorSite.author, "镜中"] {
            let target = String(template.dropFirst(base.count)).replacingOccurrences(of: "{searchTerms}", with: ServeWorkspace.encoded(words))
            let (_, found) = try await Self.document(workspace, target)
            #expect(found.atom("entry").compactMap { $0.atomText("title") } == [MirrorSite.bookName], "\(words)")
            #expect(found.link("http://opds-spec.org/acquisition") == nil)
        }
        let (_, none) = try await Self.document(workspace, "/opds/search?q=nothing-like-it")
        #expect(none.atom("entry").isEmpty)
        #expect(try await workspace.client.send("GET", "/opds/search").status == 400)
    }

    @Test("OpenSearch over the sources: a found book's acquisition adds it to the shelf, answers its EPUB and fetches the rest in the background")
    func sourcesSearchAddsBook() async throws {
        let workspace = try await ServeWorkspace(chapters: 5, saved: 1)
        try workspace.store.removeBook(id: workspace.book.id)
        let description = try OPDSDocument(try await workspace.client.send("GET", "/opds/sources/search.xml").body).root
        let template = try requireValue(description.children.first { $0.name == "Url" }?.attributes["template"], "no template")
        #expect(template.hasSuffix("/opds/sources/search?q={searchTerms}"))
        let (_, found) = try await Self.document(workspace, "/opds/sources/search?q=\(ServeWorkspace.encoded(MirrorSite.bookName))")
        let entry = try requireValue(found.atom("entry").first { $0.atomText("title") == MirrorSite.bookName }, "the book was not found")
        #expect(entry.atomText("summary")?.contains("adds the book to the shelf") == true)
        #expect(entry.atomText("id")?.hasPrefix("urn:uuid:") == true)
        let add = try requireValue(entry.link("http://opds-spec.org/acquisition", type: "application/epub+zip"), "no EPUB link")
        #expect(add.href.hasPrefix("/opds/sources/add?"))
        let added = try await workspace.client.send("GET", add.href)
        #expect(added.status == 303, "\(added.status) \(added.text)")
        let location = try requireValue(added.header("Location"), "no Location")
        let book = try requireValue(try workspace.store.books().first { $0.name == MirrorSite.bookName }, "not on the shelf")
        #expect(location == "/opds/books/\(book.id).epub")
        let epub = try await workspace.client.send("GET", location)
        #expect(epub.status == 200 && epub.header("Content-Type") == "application/epub+zip")
        // The rest arrive in the background.
        try await eventually("every chapter saved") {
            let now = try workspace.store.book(id: book.id)
            return now.map { $0.doneCount == 5 } ?? false
        }
        // Getting it again does not add it twice.
        #expect(try await workspace.client.send("GET", add.href).status == 303)
        #expect(try workspace.store.books().filter { $0.name == MirrorSite.bookName }.count == 1)
    }

    @Test("A saved cover gives the entry an image and a thumbnail link; the files carry the replace rules, and an edited rule makes new ones")
    func coverAndReplaceRules() async throws {
        let workspace = try await ServeWorkspace(chapters: 2, saved: 2)
        let (_, bare) = try await Self.document(workspace, "/opds/all")
        #expect(bare.atom("entry").first?.link("http://opds-spec.org/image") == nil)
        #expect(try await workspace.client.send("GET", "/opds/books/\(workspace.book.id)/cover").status == 404)
        let coverPath = workspace.store.coverPath(bookID: workspace.book.id)
        try FileManager.default.createDirectory(atPath: (coverPath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(TinyImages.jpeg).write(to: URL(fileURLWithPath: coverPath))
        let (_, feed) = try await Self.document(workspace, "/opds/all")
        let entry = try requireValue(feed.atom("entry").first, "no entry")
        let image = try requireValue(entry.link("http://opds-spec.org/image"), "no image link")
        let thumbnail = try requireValue(entry.link("http://opds-spec.org/image/thumbnail"), "no thumbnail link")
        #expect(image.type == "image/jpeg" && thumbnail.type == "image/png")
        let cover = try await workspace.client.send("GET", image.href)
        #expect(cover.status == 200 && cover.header("Content-Type") == "image/jpeg" && cover.body == TinyImages.jpeg)
        let small = try await workspace.client.send("GET", thumbnail.href)
        #expect(small.status == 200 && small.header("Content-Type") == "image/png" && Array(small.body.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])

        // The TXT as served text is: replace rules applied; the saved text keeps the word.
        let target = "/opds/books/\(workspace.book.id).txt"
        let word = String(MirrorSite.paragraphs(1)[0].prefix(2))
        let before = try await workspace.client.send("GET", target)
        #expect(before.text.contains(word) && !before.text.contains("【替换】"))
        let rules = ReplaceRuleSet(rules: [ReplaceRule(name: "mark", pattern: word, replacement: "【替换】", isRegex: false)])
        try rules.save(to: ReplaceRuleSet.path(forLibraryAt: workspace.store.path))
        let after = try await workspace.client.send("GET", target)
        // Chapter text as served: the first paragraph with the word replaced (a title or the intro keep it, as in Legado).
        let paragraph = MirrorSite.paragraphs(1)[0]
        #expect(after.text.contains(paragraph.replacingOccurrences(of: word, with: "【替换】")) && !after.text.contains(paragraph),
                "\(after.text.split(separator: "\n").filter { $0.contains(word) })")
        #expect(after.header("ETag") != before.header("ETag"))
        let epub = try await workspace.client.send("GET", "/opds/books/\(workspace.book.id).epub")
        #expect(epub.status == 200)
    }
}
