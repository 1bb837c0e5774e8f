import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("serve --webdav: reading progress kept in step with the Legado app's WebDAV folder", .enabled(if: WebDAVServer.isAvailable,
       "wsgidav is not installed: scripts/install-deps.sh installs it into .build/webdav-venv"))
struct ServeWebDAVTests {
    @Test("At start the app's further progress is taken; a progress a client saves reaches bookProgress/ in Legado's JSON")
    func pullsAndPushes() async throws {
        let dav = try WebDAVServer()
        let file = "legado/bookProgress/" + LegadoBookProgress.fileName(name: MirrorSite.bookName, author: MirrorSite.author)
        try dav.put(Array(#"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":5,"durChapterPos":7,"durChapterTime":1767225600000,"durChapterTitle":"app"}"#.utf8),
                    at: file)
        let client = try WebDAVClient(url: dav.baseURL, credentials: WebDAVCredentials(user: dav.user, password: dav.password))
        let workspace = try await ServeWorkspace(webDAV: client)
        try await eventually("the app's progress taken at start") {
            try workspace.store.readingProgress()[workspace.book.id]?.chapterIndex == 5
        }
        let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":6,"durChapterPos":30,"durChapterTime":1767225700000,"durChapterTitle":"here"}"#
        _ = try await workspace.post("/saveBookProgress", progress, headers: [("Content-Type", "text/plain;charset=UTF-8")])
        try await eventually("the saved progress written to the WebDAV folder") {
            dav.file(file).map { String(decoding: $0, as: UTF8.self).contains(#""durChapterIndex":6"#) } ?? false
        }
        let written = String(decoding: try #require(dav.file(file)), as: UTF8.self)
        #expect(written.contains(#""durChapterPos":30"#) && written.contains(#""durChapterTitle":"here""#))
        #expect(written.hasPrefix(#"{"name":"\#(MirrorSite.bookName)","author":"#))
    }
}
