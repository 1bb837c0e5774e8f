import Foundation
import TestSupport
import Testing
@testable import BookRuleStudio

@Suite("Studio: evaluation, highlights, proposals and the chain")
struct StudioEvaluationTests {
    static let corpus = StudioWorkspace.repository + "/../shared/corpus/pages"
    static let biquge = corpus + "/0987363_book-downloader/biquge.html"

    /// Parses an answer with Foundation (the test's own reading, not the studio's writer).
    static func object(_ response: RawHTTP.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    static func evaluateBody(_ source: String, step: String, field: String) -> String {
        "{\"source\": \(StudioWorkspace.quoted(source)), \"step\": \"\(step)\", \"field\": \"\(field)\"}"
    }

    @Test("On a real saved TOC (biquge, GBK) the evaluation counts and marks the 821 chapters the page holds",
          .enabled(if: FileManager.default.fileExists(atPath: biquge), "the shared corpus is absent"))
    func realPageMatchCount() async throws {
        let workspace = try StudioWorkspace()
        try FileManager.default.copyItem(atPath: Self.biquge, toPath: workspace.fixtureDirectory + "/biquge.html")
        let opened = try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"biquge.html\", \"url\": \"https://www.biquge.com.tw/17_17275/\"}")
        #expect(opened.status == 200, "\(opened.text)")
        // The page's own count, read from its bytes: one <dd><a href=…> per chapter.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Self.biquge))
        let expected = String(decoding: bytes, as: UTF8.self).components(separatedBy: "<dd><a href=").count - 1
        #expect(expected == 821)
        let source = """
        {"bookSourceUrl": "https://www.biquge.com.tw", "ruleToc": {"chapterList": "//div[@id='list']/dl/dd",
         "chapterName": "//a/text()", "chapterUrl": "//a/@href"}}
        """
        for field in ["chapterList", "chapterUrl"] {
            let answer = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody(source, step: "toc", field: field)))
            let focus = try #require(answer["focus"] as? [String: Any])
            #expect(focus["count"] as? Int == expected, "\(field)")
            #expect((focus["nodes"] as? [Int])?.count == expected, "\(field)")
            let fields = try #require(answer["fields"] as? [[String: Any]])
            let url = try #require(fields.first { $0["field"] as? String == "chapterUrl" })
            #expect(url["count"] as? Int == expected)
            #expect((url["values"] as? [String])?.first?.hasPrefix("/17_17275/") == true)
        }
        // A changed rule changes the count: the first ten chapters only.
        let fewer = source.replacingOccurrences(of: "/dl/dd\"", with: "/dl/dd[position() <= 10]\"")
        let answer = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody(fewer, step: "toc", field: "chapterList")))
        #expect((answer["focus"] as? [String: Any])?["count"] as? Int == 10)
    }

    @Test("Each field shows its cleaned values, warnings and errors; a JSON error says where")
    func fieldsAndErrors() async throws {
        let workspace = try StudioWorkspace()
        _ = try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"toc.html\", \"url\": \"https://www.example.com/novel/5/all.html\"}")
        let broken = StudioWorkspace.sourceText
            .replacingOccurrences(of: "\"chapterName\": \"//a/text()\"", with: "\"chapterName\": \"text()\"")
            .replacingOccurrences(of: "\"chapterUrl\": \"//a/@href\"", with: "\"chapterUrl\": \"//a[@href\"")
        let answer = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody(broken, step: "toc", field: "chapterList")))
        let fields = try #require(answer["fields"] as? [[String: Any]])
        let list = try #require(fields.first { $0["field"] as? String == "chapterList" })
        let count = try #require(list["count"] as? Int)
        #expect(count > 0)
        let name = try #require(fields.first { $0["field"] as? String == "chapterName" })
        #expect((name["warnings"] as? [String])?.isEmpty == false)
        let url = try #require(fields.first { $0["field"] as? String == "chapterUrl" })
        #expect(url["error"] is String)
        let focus = try #require(answer["focus"] as? [String: Any])
        #expect(focus["count"] as? Int == count)

        let syntax = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody("{\n  \"a\": ,\n}", step: "toc", field: "chapterList")))
        let error = try #require(syntax["syntaxError"] as? [String: Any])
        #expect(error["line"] as? Int == 2)
    }

    @Test("Clicking a node proposes an XPath and a CSS selector that select it, and a general XPath for its like")
    func proposals() async throws {
        let workspace = try StudioWorkspace()
        _ = try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"toc.html\", \"url\": \"https://www.example.com/novel/5/all.html\"}")
        let page = try #require(workspace.server.app.session.page(.toc))
        let links = page.sanitized.elements.enumerated().filter { $0.element.name == "a" && $0.element.parentNode?.name == "li" }
        let link = try #require(links.first)
        let answer = try Self.object(try await workspace.get("/api/propose?step=toc&node=\(link.offset)"))
        let candidates = try #require(answer["candidates"] as? [[String: Any]])
        let exact = try #require(candidates.first { $0["kind"] as? String == "XPath" })
        #expect(exact["matches"] as? Int == 1, "\(exact)")
        #expect((exact["rule"] as? String)?.contains("chapter-list") == true)
        let css = try #require(candidates.first { $0["kind"] as? String == "CSS" })
        #expect(css["matches"] as? Int == 1, "\(css)")
        let general = try #require(candidates.first { ($0["kind"] as? String)?.contains("all like it") == true })
        #expect(general["matches"] as? Int == links.count, "\(general)")
        #expect(try await workspace.get("/api/propose?step=toc&node=999999").status == 400)
    }

    @Test("For a field read inside list elements, the proposal is relative to the list element and gives a value in each")
    func proposalsRelativeToListElement() async throws {
        let workspace = try StudioWorkspace()
        _ = try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"toc.html\", \"url\": \"https://www.example.com/novel/5/all.html\"}")
        let page = try #require(workspace.server.app.session.page(.toc))
        let links = page.sanitized.elements.enumerated().filter { $0.element.name == "a" && $0.element.parentNode?.name == "li" }
        let link = try #require(links.first)
        let list = "//ul[@id='chapter-list']/li[a]"
        let query = list.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? list
        let answer = try Self.object(try await workspace.get("/api/propose?step=toc&node=\(link.offset)&field=chapterName&list=\(query)"))
        #expect(answer["listElement"] as? String != nil)
        let candidates = try #require(answer["candidates"] as? [[String: Any]])
        let general = try #require(candidates.first { ($0["kind"] as? String)?.contains("all like it") == true } ?? candidates.first)
        let rule = try #require(general["rule"] as? String)
        #expect(rule.hasPrefix("//li"), "\(rule)")
        #expect(general["matches"] as? Int == links.count, "\(general)")
        // Used for chapterName, it gives one name in every chapter's list element.
        let source = StudioWorkspace.sourceText.replacingOccurrences(of: "\"chapterName\": \"//a/text()\"",
                                                                     with: "\"chapterName\": \(StudioWorkspace.quoted(rule))")
        let evaluated = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody(source, step: "toc", field: "chapterName")))
        let fields = try #require(evaluated["fields"] as? [[String: Any]])
        let name = try #require(fields.first { $0["field"] as? String == "chapterName" })
        #expect(name["count"] as? Int == links.count, "\(name)")
    }

    @Test("A JSON syntax error's reason is the message alone: the page adds the line and column once")
    func syntaxErrorSaysWhereOnce() async throws {
        let workspace = try StudioWorkspace()
        let answer = try Self.object(try await workspace.post("/api/evaluate", Self.evaluateBody("{\n\"a\": }", step: "toc", field: "chapterList")))
        let syntax = try #require(answer["syntaxError"] as? [String: Any])
        #expect(syntax["line"] as? Int == 2)
        let reason = try #require(syntax["reason"] as? String)
        #expect(!reason.contains("line "), "\(reason)")
    }

    @Test("The chain runs on the fixture: book, then TOC, then chapter; each step's page becomes the frame's")
    func chainOnFixture() async throws {
        let workspace = try StudioWorkspace()
        let source = StudioWorkspace.quoted(StudioWorkspace.sourceText)
        let book = try Self.object(try await workspace.post("/api/step", "{\"source\": \(source), \"step\": \"book\", \"url\": \"https://www.example.com/novel/5/\"}"))
        #expect(book["error"] == nil, "\(book)")
        let info = try #require(book["book"] as? [String: Any])
        let tocURL = try #require(info["tocURL"] as? String)
        #expect(tocURL == "https://www.example.com/novel/5/all.html")
        let toc = try Self.object(try await workspace.post("/api/step", "{\"source\": \(source), \"step\": \"toc\", \"url\": \"\(tocURL)\"}"))
        let chapters = try #require(toc["chapters"] as? [[String: Any]])
        #expect(toc["chapterCount"] as? Int == chapters.count && !chapters.isEmpty)
        #expect(workspace.server.app.session.page(.toc)?.url == tocURL)
        let frame = try await workspace.get("/frame/toc")
        #expect(frame.text.contains("chapter-list"))
        let first = try #require(chapters.first?["url"] as? String)
        let chapter = try Self.object(try await workspace.post("/api/step", "{\"source\": \(source), \"step\": \"chapter\", \"url\": \"\(first)\"}"))
        #expect(((chapter["content"] as? [String: Any])?["text"] as? String)?.isEmpty == false, "\(chapter)")
        // Live is off: asking for it says so rather than fetching.
        let live = try Self.object(try await workspace.post("/api/step", "{\"source\": \(source), \"step\": \"toc\", \"url\": \"\(tocURL)\", \"live\": true}"))
        #expect((live["error"] as? String)?.contains("offline") == true)
    }

    @Test("The test panel runs bookrule test's check on the fixture")
    func testReport() async throws {
        let workspace = try StudioWorkspace()
        let body = "{\"source\": \(StudioWorkspace.quoted(StudioWorkspace.sourceText)), \"book\": \"https://www.example.com/novel/5/\", \"chapter\": \"https://www.example.com/read/5/1.html\"}"
        let report = try Self.object(try await workspace.post("/api/test", body))
        let steps = try #require(report["steps"] as? [[String: Any]])
        #expect(!steps.isEmpty)
        #expect(steps.allSatisfy { $0["status"] as? String != "failed" }, "\(steps)")
    }

    @Test("The test panel compares with the fixture's snapshot (expected.json), as bookrule test does, and writes nothing")
    func testReportComparesSnapshot() async throws {
        let workspace = try StudioWorkspace()
        try "{}\n".write(toFile: workspace.fixtureDirectory + "/expected.json", atomically: true, encoding: .utf8)
        let before = try workspace.snapshot()
        let body = "{\"source\": \(StudioWorkspace.quoted(StudioWorkspace.sourceText)), \"book\": \"https://www.example.com/novel/5/\", \"chapter\": \"https://www.example.com/read/5/1.html\"}"
        let report = try Self.object(try await workspace.post("/api/test", body))
        let comparison = try #require(report["snapshotComparison"] as? [String: Any], "\(report)")
        #expect(comparison["matches"] as? Bool == false)
        #expect((comparison["path"] as? String)?.hasSuffix("/expected.json") == true)
        #expect(try workspace.snapshot() == before)
    }
}
