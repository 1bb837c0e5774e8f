import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve beyond Legado: reader's /reader3/ calls (explore, other sources, switching)",
       .timeLimit(.minutes(2 * TestTime.scale)))
struct Reader3Tests {
    @Test("/reader3/ answers Legado's calls too: getBookshelf there is the same shelf")
    func prefixedLegadoCalls() async throws {
        let workspace = try await ServeWorkspace()
        #expect(try ServeWorkspace.data(try await workspace.get("/reader3/getBookshelf"))
                == (try ServeWorkspace.data(try await workspace.get("/getBookshelf"))))
    }

    @Test("exploreBook lists an explore page's books as SearchBooks that saveBook takes back")
    func exploreBook() async throws {
        let workspace = try await ServeWorkspace()
        let target = "/reader3/exploreBook?bookSourceUrl=\(ServeWorkspace.encoded(workspace.site.baseURL))"
            + "&ruleFindUrl=\(ServeWorkspace.encoded("/search?q=镜中"))&page=1"
        let books = try #require(try ServeWorkspace.data(try await workspace.get(target)).arrayValue)
        let book = try #require(books.first?.value.objectValue)
        #expect(books.count == 1)
        #expect(book["name"]?.value == .string(MirrorSite.bookName))
        #expect(book["origin"]?.value == .string(workspace.site.baseURL))
        #expect(book["bookUrl"]?.value == .string(workspace.site.bookURL))
        #expect(kind(book["type"]?.value) == .number && kind(book["time"]?.value) == .number)
        // The same parameters as a POST body.
        let posted = try await workspace.post("/reader3/exploreBook",
                                              #"{"bookSourceUrl":"\#(workspace.site.baseURL)","ruleFindUrl":"/search?q=镜中","page":1}"#)
        #expect(try ServeWorkspace.data(posted).arrayValue?.count == 1)
    }

    @Test("searchBookSource finds the book on the library's other sources, and setBookSource moves it there keeping saved chapters")
    func otherSourcesAndSwitch() async throws {
        let workspace = try await ServeWorkspace()
        let other = try MirrorSite(host: "127.0.0.2", chapters: 8)
        #expect(try ServeWorkspace.data(try await workspace.post("/saveBookSource", other.sourceJSON(named: "other"))) == .string(""))
        let found = try #require(try ServeWorkspace.data(
            try await workspace.get("/reader3/searchBookSource?url=\(ServeWorkspace.encoded(workspace.site.bookURL))")).arrayValue)
        #expect(Set(found.compactMap { $0.value.objectValue?["origin"]?.value.stringValue }) == [workspace.site.baseURL, other.baseURL])

        let savedBefore = try #require(try workspace.store.book(id: workspace.book.id)).doneCount
        #expect(savedBefore > 0)
        let moved = try await workspace.post("/reader3/setBookSource",
                                             #"{"bookUrl":"\#(workspace.site.bookURL)","bookSourceUrl":"\#(other.baseURL)","newUrl":"\#(other.bookURL)"}"#)
        let book = try #require(try ServeWorkspace.data(moved).objectValue)
        #expect(book["origin"]?.value == .string(other.baseURL))
        #expect(book["bookUrl"]?.value == .string(other.bookURL))
        let stored = try #require(try workspace.store.book(id: workspace.book.id))
        #expect(stored.sourceURL == other.baseURL)
        #expect(stored.doneCount == savedBefore)
    }
}
