import Foundation
import Testing
import TestSupport
import BookRuleHTTP
@testable import bookrule

@Suite("bookrule test checks explore", .timeLimit(.minutes(2 * TestTime.scale)))
struct TestExploreCommandTests {
    /// A loopback site with a book, its one chapter and an explore category page.
    func site() throws -> FaultServer {
        let html = [HTTPHeader("Content-Type", "text/html; charset=utf-8")]
        return try FaultServer(maxRequests: 20) { request, _ in
            switch request.path {
            case "/book/1": .ok("<html><body><h1>星河</h1><ul><li><a href='/c/1'>一</a></li></ul></body></html>", headers: html)
            case "/c/1": .ok("<html><body><div>\(String(repeating: "正文", count: 40))</div></body></html>", headers: html)
            case "/sort/1/1.html": .ok("<html><body><ul class='list'><li><a href='/book/7/'>星河旅人</a></li></ul></body></html>", headers: html)
            default: .status(404)
            }
        }
    }

    func source(for server: FaultServer, bookList: String = "//ul[@class='list']/li") -> String {
        """
        {"bookSourceUrl": "\(server.baseURL)", "bookSourceName": "explore",
         "exploreUrl": "玄幻::/sort/1/{{page}}.html",
         "ruleExplore": {"bookList": "\(bookList)", "name": "//a/text()", "bookUrl": "//a/@href"},
         "ruleBookInfo": {"name": "//h1/text()"},
         "ruleToc": {"chapterList": "//li/a", "chapterName": "text", "chapterUrl": "href"},
         "ruleContent": {"content": "//div"}}
        """
    }

    @Test("test --record records the explore page, and the replay checks explore rule by rule; a broken explore rule fails it")
    func recordAndReplayExplore() async throws {
        let server = try site()
        let scratch = try ScratchDirectory("test-explore")
        let path = scratch.path + "/explore.json"
        try source(for: server).write(toFile: path, atomically: true, encoding: .utf8)
        let fixtures = scratch.path + "/fixture"
        let book = ["--book", server.baseURL + "/book/1", "--fixtures", fixtures]

        let record = await runCommand(["test", path, "--record", "--delay", "0"] + book)
        #expect(record.status == 0, "\(record.output)\(record.errors)")
        #expect(server.requests(matching: "/sort/1/1.html").count == 1)
        let har = try String(contentsOfFile: fixtures + "/site.har", encoding: .utf8)
        #expect(har.contains(server.baseURL + "/sort/1/1.html"))

        server.stop()
        let replay = await runCommand(["test", path, "--verbose"] + book)
        #expect(replay.status == 0, "\(replay.output)\(replay.errors)")
        #expect(replay.output.contains("✓ explore       1 categor(ies), 0 header(s)"), "\(replay.output)")
        #expect(replay.output.contains("ruleExplore.name [XPath] 1 match(es) → \"星河旅人\""), "\(replay.output)")
        #expect(replay.output.contains("✓ books found: 1 book(s) in \"玄幻\" (/sort/1/{{page}}.html)"))

        try source(for: server, bookList: "//ul[@class='books']/li").write(toFile: path, atomically: true, encoding: .utf8)
        let broken = await runCommand(["test", path] + book)
        #expect(broken.status == 1)
        #expect(broken.output.contains("✗ explore"), "\(broken.output)")
        #expect(broken.output.contains("ruleExplore.bookList [XPath] 0 match(es)"), "\(broken.output)")
        #expect(broken.output.contains("✗ books found: 0 book(s) in \"玄幻\""))
    }
}
