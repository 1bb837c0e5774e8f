import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: every OPDS document is valid Atom (RFC 4287's RELAX NG schema, checked with jing)",
       .timeLimit(.minutes(3 * TestTime.scale)))
struct OPDSValidationTests {
    @Test("Every feed and entry of the catalog matches RFC 4287's schema",
          .enabled(if: OPDSTools.jing != nil, "Java or jing is absent (apt-get install jing): the feeds were not validated"))
    func feedsValidate() async throws {
        let jing = try #require(OPDSTools.jing)
        let workspace = try await ServeWorkspace(chapters: 3, saved: 2)
        try OPDSCatalogTests.addBooks(3, to: workspace)
        try workspace.store.saveProgress(bookID: workspace.book.id, ReadingProgress(chapterIndex: 0, chapterPosition: 0,
                                                                                     chapterTitle: "1", readAt: Date()))
        let targets = ["/opds", "/opds/recent", "/opds/updated", "/opds/all", "/opds/kinds",
                       "/opds/kind?name=\(ServeWorkspace.encoded("历史"))", "/opds/search?q=Book",
                       "/opds/search?q=nothing", "/opds/books/\(workspace.book.id)",
                       "/opds/sources/search?q=\(ServeWorkspace.encoded(MirrorSite.bookName))"]
        var files: [String] = []
        for (number, target) in targets.enumerated() {
            let response = try await workspace.client.send("GET", target)
            #expect(response.status == 200, "\(target): \(response.text)")
            let path = workspace.directory.path + "/feed-\(number).xml"
            try Data(response.body).write(to: URL(fileURLWithPath: path))
            files.append(path)
        }
        let (status, report) = try await OPDSTools.runJar(jing, ["-c", OPDSTools.atomSchema] + files)
        #expect(status == 0, "jing:\n\(report)")
        // The check is not vacuous: a feed without its id fails it.
        let broken = workspace.directory.path + "/broken.xml"
        let text = try String(contentsOfFile: files[0], encoding: .utf8)
        try text.replacingOccurrences(of: "<id>urn:bookrule:catalog</id>", with: "").write(toFile: broken, atomically: true, encoding: .utf8)
        let (brokenStatus, brokenReport) = try await OPDSTools.runJar(jing, ["-c", OPDSTools.atomSchema, broken])
        #expect(brokenStatus != 0 && brokenReport.contains("id"), "jing:\n\(brokenReport)")
    }
}
