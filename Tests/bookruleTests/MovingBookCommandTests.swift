import Foundation
import Testing
import BookRule
import TestSupport

/// `sources --add`, `sources --find`, `fetch --search --sources --mirrors` and sites that move (issue #24),
/// end to end on loopback `MirrorSite`s: the same generated book on several hosts.
@Suite("Books that move: other sources recorded, mirrors, moved hosts", .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct MovingBookCommandTests {
    static let fast = ["--delay", "0", "--failure-delay", "0", "--max-retries", "0"]

    /// A library with `site`'s book fetched from `site.json` (chapters `to` and before, or all).
    func shelved(_ site: MirrorSite, named name: String, in folder: String, to: Int? = nil) async throws -> String {
        let library = folder + "/library.sqlite"
        let source = try site.sourceFile(named: name, in: folder)
        let range = to.map { ["--to", String($0)] } ?? []
        let fetch = await runCommand(["fetch", "--source", source, site.bookURL, "--library", library] + range + Self.fast)
        #expect(fetch.status == 0, "\(fetch.errors)")
        return library
    }

    @Test("sources --add records a mirror with other URLs without switching; an uncertain copy is refused with the counts")
    func addRecordsWithoutSwitching() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 8, style: .arabic)
        let mirror = try MirrorSite(host: "127.0.0.3", chapters: 9, style: .chinese, bookPath: "/b/7/")
        let unsure = try MirrorSite(host: "127.0.0.4", chapters: 8, style: .annotated)
        let scratch = try ScratchDirectory("add")
        let library = try await shelved(first, named: "mirror1", in: scratch.path)
        let sources = scratch.path + "/sources"
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)

        let add = await runCommand(["sources", "1", "--add", try mirror.sourceFile(named: "mirror2", in: sources),
                                    "--library", library] + Self.fast)
        #expect(add.status == 0, "\(add.errors)")
        #expect(add.output.contains("recorded mirror2 as a source of #1 \(MirrorSite.bookName) (not switched): \(mirror.bookURL), "
                                    + "8 of 8 chapter(s) by title, 0 by position or number only, 0 unmatched, 1 new"), "\(add.output)")
        let store = try LibraryStore(path: library)
        #expect(try store.book(id: 1)?.sourceURL == first.baseURL)
        #expect(try store.knownSources(bookID: 1).map(\.bookURL).sorted() == [first.bookURL, mirror.bookURL].sorted())
        #expect(mirror.chapterRequests.isEmpty)

        let refused = await runCommand(["sources", "1", "--add", try unsure.sourceFile(named: "mirror3", in: sources),
                                        "--library", library] + Self.fast)
        #expect(refused.status == 1)
        #expect(refused.errors.contains("mirror3: not certainly the same book: 0 of 8 chapter(s) by title, 8 by position or number only"),
                "\(refused.errors)")
        #expect(try store.knownSources(bookID: 1).count == 2)
    }

    @Test("sources --find over a folder records the certain copy and rejects the uncertain one, saying why")
    func findRecordsCertainCopies() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 6, style: .arabic)
        let mirror = try MirrorSite(host: "127.0.0.3", chapters: 6, style: .spaced, bookPath: "/read/42/")
        let unsure = try MirrorSite(host: "127.0.0.4", chapters: 6, style: .annotated)
        let scratch = try ScratchDirectory("find")
        let library = try await shelved(first, named: "mirror1", in: scratch.path)
        let folder = scratch.path + "/collection"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try first.sourceFile(named: "mirror1", in: folder)
        _ = try mirror.sourceFile(named: "mirror2", in: folder)
        _ = try unsure.sourceFile(named: "mirror3", in: folder)

        let find = await runCommand(["sources", "1", "--find", folder, "--library", library] + Self.fast)
        #expect(find.status == 0, "\(find.errors)")
        #expect(find.output.contains("recorded  mirror2  \(mirror.bookURL)  (6 of 6 chapter(s) by title"), "\(find.output)")
        #expect(find.output.contains("rejected  mirror3  \(unsure.bookURL): not certainly the same book: 0 of 6 chapter(s) by title"))
        #expect(find.output.contains("3 source(s) for #1 \(MirrorSite.bookName): 1 recorded, 1 rejected, 0 failed, 0 do not list it, 1 its current source"))
        let known = try LibraryStore(path: library).knownSources(bookID: 1)
        #expect(known.map(\.sourceName).sorted() == ["mirror1", "mirror2"])
        #expect(known.first { $0.sourceName == "mirror2" }?.tocLength == 6)
    }

    @Test("fetch --search --sources --mirrors 1 fetches from the first source and takes the chapter it fails from the mirror")
    func fetchFromCollectionFallsBackToMirror() async throws {
        let first = try MirrorSite(host: "127.0.0.2", chapters: 6, style: .arabic)
        let mirror = try MirrorSite(host: "127.0.0.3", chapters: 6, style: .chinese, bookPath: "/b/7/")
        first.failChapters([3])
        let scratch = try ScratchDirectory("collection-fetch")
        let folder = scratch.path + "/collection"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try first.sourceFile(named: "mirror1", in: folder)
        _ = try mirror.sourceFile(named: "mirror2", in: folder)
        let library = scratch.path + "/library.sqlite"

        let fetch = await runCommand(["fetch", "--search", "镜中", "--sources", folder, "--mirrors", "1", "--library", library] + Self.fast)
        #expect(fetch.status == 0, "\(fetch.errors)")
        #expect(fetch.errors.contains("fetching from mirror1 (6 entries); mirrors: mirror2 (6 of 6 chapter(s) by title"), "\(fetch.errors)")
        #expect(fetch.errors.contains("from mirror2"), "\(fetch.errors)")
        let store = try LibraryStore(path: library)
        #expect(try store.books().count == 1)
        let chapters = try store.chapters(bookID: 1)
        #expect(chapters.allSatisfy { $0.state == .done })
        #expect(chapters.map(\.title) == (1...6).map { MirrorSite.title($0, style: .arabic) })
        #expect(chapters[2].sourceURL == mirror.baseURL)
        #expect(try store.text(bookID: 1, url: first.bookURL + "3.html") == MirrorSite.text(3))
        #expect(mirror.chapterRequests == [3])

        // Again, with the mirror first in the collection: the book is resumed where it is, not shelved twice.
        let reordered = scratch.path + "/reordered"
        try FileManager.default.createDirectory(atPath: reordered, withIntermediateDirectories: true)
        _ = try mirror.sourceFile(named: "a-mirror2", in: reordered)
        _ = try first.sourceFile(named: "b-mirror1", in: reordered)
        let again = await runCommand(["fetch", "--search", "镜中", "--sources", reordered, "--library", library] + Self.fast)
        #expect(again.status == 0, "\(again.errors)")
        #expect(again.errors.contains("fetching from b-mirror1"), "\(again.errors)")
        #expect(try store.books().count == 1)
    }

    @Test("fetch --search --sources --mirrors 3 on three mirrors gives the single-source book, every host serving and paced")
    func fetchFromCollectionWithThreeMirrors() async throws {
        let sites = try [MirrorSite(host: "127.0.0.2", chapters: 24, style: .arabic),
                         MirrorSite(host: "127.0.0.3", chapters: 24, style: .chinese, bookPath: "/b/7/"),
                         MirrorSite(host: "127.0.0.4", chapters: 24, style: .spaced, bookPath: "/read/9/")]
        let scratch = try ScratchDirectory("three-mirrors")
        let folder = scratch.path + "/collection"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (index, site) in sites.enumerated() { _ = try site.sourceFile(named: "mirror\(index + 1)", in: folder) }
        let delay = 0.03
        let fetch = await runCommand(["fetch", "--search", "镜中之书", "--sources", folder, "--mirrors", "3",
                                      "--library", scratch.path + "/library.sqlite", "--delay", String(delay),
                                      "--failure-delay", "0", "--max-retries", "0"])
        #expect(fetch.status == 0, "\(fetch.errors)")
        #expect(fetch.errors.contains("fetching from mirror1 (24 entries); mirrors: mirror2 (24 of 24 chapter(s) by title"), "\(fetch.errors)")
        let store = try LibraryStore(path: scratch.path + "/library.sqlite")
        let chapters = try store.chapters(bookID: 1)
        #expect(chapters.map(\.title) == (1...24).map { MirrorSite.title($0, style: .arabic) })
        for (index, chapter) in chapters.enumerated() {
            #expect(try store.text(bookID: 1, url: chapter.url) == MirrorSite.text(index + 1))
        }
        #expect(Set(chapters.compactMap(\.sourceURL)) == Set(sites.map(\.baseURL)))
        #expect(sites.flatMap(\.chapterRequests).sorted() == Array(1...24))
        // Each host paced: a request starts at least the delay after the one before it ended (5 ms tolerance).
        for site in sites {
            let records = site.server.records
            for (earlier, later) in zip(records, records.dropFirst()) {
                #expect(later.arrivedAt - (earlier.finishedAt ?? earlier.arrivedAt) >= delay - 0.005, "\(site.baseURL)")
            }
        }
    }

    @Test("fetch --sources refuses an ambiguous keyword, listing the books; --pick chooses")
    func fetchFromCollectionRefusesAmbiguity() async throws {
        let site = try MirrorSite(host: "127.0.0.2", chapters: 2)
        let other = try FaultServer(host: "127.0.0.3") { request, _ in
            request.path == "/search" ? .ok("<html><body><div id='results'><div class='book'><a href='/book/1/'>镜中之书外传</a>"
                                             + "<span class='author'>某人</span></div></div></body></html>")
                : .status(404)
        }
        let scratch = try ScratchDirectory("ambiguous")
        let folder = scratch.path + "/collection"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = try site.sourceFile(named: "mirror1", in: folder)
        try site.sourceJSON(named: "other").replacingOccurrences(of: site.baseURL, with: other.baseURL)
            .write(toFile: folder + "/other.json", atomically: true, encoding: .utf8)
        let library = scratch.path + "/library.sqlite"
        let refused = await runCommand(["fetch", "--search", "镜中", "--sources", folder, "--library", library] + Self.fast)
        #expect(refused.status == 2)
        // Both books have one source: they are listed in the collection's order (mirror1.json, other.json).
        #expect(refused.errors.contains("1. \(MirrorSite.bookName) — \(MirrorSite.author)  (1 source(s): mirror1)"), "\(refused.errors)")
        #expect(refused.errors.contains("2. 镜中之书外传 — 某人  (1 source(s): other)"))
        #expect(refused.errors.contains("found 2 books; choose one with --pick N"))
        // `search --sources` numbers them the same way: the N it lists is the N --pick takes (FoundBookList.ranked).
        let listed = await runCommand(["search", "镜中", "--sources", folder] + Self.fast)
        #expect(listed.status == 0, "\(listed.errors)")
        #expect(listed.output.contains("1. \(MirrorSite.bookName) — \(MirrorSite.author)  (1 source)"), "\(listed.output)")
        #expect(listed.output.contains("2. 镜中之书外传 — 某人  (1 source)"), "\(listed.output)")
        #expect(site.chapterRequests.isEmpty)
        let picked = await runCommand(["fetch", "--search", "镜中", "--sources", folder, "--pick", "1",
                                       "--library", library] + Self.fast)
        #expect(picked.status == 0, "\(picked.errors)")
        #expect(site.chapterRequests == [1, 2])
        let none = await runCommand(["fetch", "--search", "无此书", "--sources", folder + "/mirror1.json", "--library", library] + Self.fast)
        #expect(none.status == 1)
        #expect(none.errors.contains("error: none of the 1 source(s) searched found a book for \"无此书\""), "\(none.errors)")
    }

    @Test("a source file whose site moved to another host moves its book: saved chapters kept, the rest fetched from the new URLs")
    func movedSourceFileMovesTheBook() async throws {
        let old = try MirrorSite(host: "127.0.0.2", chapters: 6)
        let scratch = try ScratchDirectory("moved")
        let library = try await shelved(old, named: "mirror", in: scratch.path, to: 3)
        old.server.stop()
        let new = try MirrorSite(host: "127.0.0.3", chapters: 6)
        let moved = scratch.path + "/moved"
        try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)

        let fetch = await runCommand(["fetch", "--source", try new.sourceFile(named: "mirror", in: moved), new.bookURL,
                                      "--library", library] + Self.fast)
        #expect(fetch.status == 0, "\(fetch.errors)")
        #expect(fetch.errors.contains("mirror moved from \(old.baseURL) to \(new.baseURL): 1 book(s) take the new URLs (6 chapter URL(s); 3 saved chapter(s) keep their text)"),
                "\(fetch.errors)")
        #expect(new.chapterRequests == [4, 5, 6])
        let store = try LibraryStore(path: library)
        #expect(try store.books().map(\.url) == [new.bookURL])
        #expect(try store.book(id: 1)?.sourceURL == new.baseURL)
        #expect(try store.chapters(bookID: 1).map(\.url) == (1...6).map { new.bookURL + "\($0).html" })
        #expect(try store.text(bookID: 1, url: new.bookURL + "2.html") == MirrorSite.text(2))
    }

    @Test("sources --move-host OLD NEW moves every book of the host in one go; update then fetches only the rest from the new host")
    func moveHostThenUpdate() async throws {
        let old = try MirrorSite(host: "127.0.0.2", chapters: 5)
        let scratch = try ScratchDirectory("move-host")
        let library = try await shelved(old, named: "mirror", in: scratch.path, to: 2)
        old.server.stop()
        let new = try MirrorSite(host: "127.0.0.3", chapters: 5)
        let from = try #require(URLOrigin(old.baseURL)).authority
        let to = try #require(URLOrigin(new.baseURL)).authority

        let moved = scratch.path + "/moved"
        try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)
        let note = await runCommand(["switch", "1", try new.sourceFile(named: "mirror", in: moved),
                                     "--library", library] + Self.fast)
        #expect(note.errors.contains("note: mirror is the library's source \(old.baseURL) moved from \(old.baseURL) to \(new.baseURL) "
                                     + "(1 book(s)); `bookrule fetch --source` with this file moves them first"), "\(note.errors)")
        #expect(note.output.contains("dry run: nothing changed"), "\(note.output)")

        let move = await runCommand(["sources", "--move-host", from, to, "--library", library])
        #expect(move.status == 0, "\(move.errors)")
        #expect(move.output.contains("moved 1 book(s) (#1) from \(from) to \(to): 5 chapter URL(s) rewritten, 2 saved chapter(s) keep their text"),
                "\(move.output)")
        #expect(move.output.contains("source \(old.baseURL) is now \(new.baseURL)"))
        let again = await runCommand(["sources", "--move-host", from, to, "--library", library])
        #expect(again.status == 1)
        #expect(again.errors.contains("no book of the library has a URL on \(from)"))

        let update = await runCommand(["update", "1", "--library", library] + Self.fast)
        #expect(update.status == 0, "\(update.errors)")
        #expect(new.chapterRequests == [3, 4, 5])
        let store = try LibraryStore(path: library)
        #expect(try store.knownSources(bookID: 1).map(\.bookURL) == [new.bookURL])
        #expect(try store.text(bookID: 1, url: new.bookURL + "1.html") == MirrorSite.text(1))
        let bad = await runCommand(["sources", "--move-host", "ftp://x", to, "--library", library])
        #expect(bad.status == 2)
    }
}
