import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
import BookRuleDocument
import BookRuleEngine
import TestSupport

/// A fresh directory for one test's files.
private func scratchDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "bookrule-saved-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

@Suite("Saved pages: answers from disk, never a fetch")
struct SavedPageTransportTests {
    @Test("a saved page answers its URL with its bytes and that URL; other URLs are 'not saved', naming them")
    func answersItsURLOnly() async throws {
        let page = SavedPage(url: "https://x.test/book/1/", body: Array("<a href='2.html'>next</a>".utf8), file: "book.html")
        let transport = SavedPageTransport(pages: [page])
        let response = try await transport.send(HTTPRequest(url: "https://x.test/book/1/"))
        #expect(response.status == 200)
        #expect(response.url == "https://x.test/book/1/")  // links resolve against the real URL
        #expect(response.body == page.body)
        do {
            _ = try await transport.send(HTTPRequest(url: "https://x.test/book/1/2.html"))
            Issue.record("expected notSaved")
        } catch let error as SavedPageError {
            #expect(error == .notSaved(method: "GET", url: "https://x.test/book/1/2.html", body: nil, saved: ["https://x.test/book/1/"]))
            #expect(error.description.hasPrefix("not saved: GET https://x.test/book/1/2.html is not among the saved pages"))
            #expect(error.description.contains("nothing was fetched"))
        }
    }

    @Test("URLs match with percent-encoding, host case and fragment normalised, as in HAR replay")
    func normalisedMatch() async throws {
        let transport = SavedPageTransport(pages: [SavedPage(url: "https://X.test/书/1.html", body: [0x31], file: "f")])
        let response = try await transport.send(HTTPRequest(url: "https://x.test/%E4%B9%A6/1.html#top"))
        #expect(response.body == [0x31])
    }

    @Test("a POST page with a body answers that body only; one without answers any body; GET is not POST")
    func postBodies() async throws {
        let transport = SavedPageTransport(pages: [
            SavedPage(url: "https://x.test/search", method: "POST", requestBody: Array("q=a".utf8), body: [0x61], file: "a"),
            SavedPage(url: "https://x.test/any", method: "post", body: [0x62], file: "b"),
        ])
        #expect(try await transport.send(HTTPRequest(url: "https://x.test/search", method: "POST", body: Array("q=a".utf8))).body == [0x61])
        #expect(try await transport.send(HTTPRequest(url: "https://x.test/any", method: "POST", body: Array("q=zz".utf8))).body == [0x62])
        await #expect(throws: SavedPageError.self) {
            try await transport.send(HTTPRequest(url: "https://x.test/search", method: "POST", body: Array("q=b".utf8)))
        }
        await #expect(throws: SavedPageError.self) { try await transport.send(HTTPRequest(url: "https://x.test/search")) }
    }

    @Test("a page without a URL answers the first request nothing else answers, then only that request")
    func unboundPage() async throws {
        let transport = SavedPageTransport(pages: [
            SavedPage(url: nil, body: [0x73], file: "search.html"),
            SavedPage(url: "https://x.test/book/1/", body: [0x62], file: "book.html"),
        ])
        #expect(try await transport.send(HTTPRequest(url: "https://x.test/book/1/")).body == [0x62])
        let search = HTTPRequest(url: "https://x.test/s?q=1", method: "POST", body: [0x71])
        #expect(try await transport.send(search).body == [0x73])
        #expect(try await transport.send(search).body == [0x73])
        await #expect(throws: SavedPageError.self) { try await transport.send(HTTPRequest(url: "https://x.test/s?q=2")) }
    }

    @Test("a fallback (a HAR replay) answers what the pages do not; observe hears only the pages' answers")
    func fallbackAndObserve() async throws {
        let heard = Locked<[String]>([])
        var recording = HARRecording()
        recording.add(SavedPage(url: "https://x.test/2", body: [0x32], file: "two"), url: "https://x.test/2")
        let transport = SavedPageTransport(pages: [SavedPage(url: "https://x.test/1", body: [0x31], file: "one")],
                                           fallback: HARReplayTransport(recording: recording),
                                           observe: { exchange in heard.withLock { $0.append(exchange.description) } })
        #expect(try await transport.send(HTTPRequest(url: "https://x.test/1")).body == [0x31])
        #expect(try await transport.send(HTTPRequest(url: "https://x.test/2")).body == [0x32])
        #expect(heard.withLock { $0 } == ["saved GET https://x.test/1 -> 200, 1 B"])
    }

    @Test("a directory's pages.json maps URLs to files, objects (method, body, contentType, status) and arrays")
    func directoryIndex() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data([0xB5, 0xDA]).write(to: URL(fileURLWithPath: directory + "/toc.html"))
        try Data("results".utf8).write(to: URL(fileURLWithPath: directory + "/search.html"))
        try """
        {
          "https://x.test/book/1/": "toc.html",
          "https://x.test/search": [{"file": "search.html", "method": "post", "body": "q=%D0%C7", "contentType": "text/html; charset=gbk"}],
          "https://x.test/gone": {"file": "search.html", "status": 404}
        }
        """.write(toFile: directory + "/pages.json", atomically: true, encoding: .utf8)
        let pages = try SavedPageDirectory.load(directory)
        #expect(pages.count == 3)
        #expect(pages[0].url == "https://x.test/book/1/" && pages[0].body == [0xB5, 0xDA] && pages[0].method == "GET")
        #expect(pages[1].method == "POST" && pages[1].requestBody == Array("q=%D0%C7".utf8))
        #expect(pages[1].contentType == "text/html; charset=gbk")
        #expect(pages[2].status == 404)
    }

    @Test("a charset in a pages.json contentType wins over the source's charset option (a GBK site's page saved as UTF-8)")
    func savedContentTypeCharsetWinsOverSourceOption() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("<ul><li><a href='/b/1'>斗破苍穹</a></li></ul>".utf8).write(to: URL(fileURLWithPath: directory + "/search.html"))
        try #"{"https://x.test/s?q=%B6%B7%C6%C6": {"file": "search.html", "contentType": "text/html; charset=utf-8"}}"#
            .write(toFile: directory + "/pages.json", atomically: true, encoding: .utf8)
        let source = try loadSource(#"""
        {"bookSourceUrl": "https://x.test", "bookSourceName": "GBK site",
         "searchUrl": "/s?q={{key}},{\"charset\": \"gbk\"}",
         "ruleSearch": {"bookList": "//li", "name": "//a/text()", "bookUrl": "//a/@href"}}
        """#)
        let transport = SavedPageTransport(pages: try SavedPageDirectory.load(directory))
        let response = try await transport.send(HTTPRequest(url: "https://x.test/s?q=%B6%B7%C6%C6"))
        #expect(response.savedCharset == "utf-8")
        let engine = SourceEngine(source: source, transport: transport)
        #expect(try await engine.search(key: "斗破").results.map(\.name) == ["斗破苍穹"])
        let decision = try CharsetDetector.decide(bytes: response.body, sourceOption: "gbk", contentType: response.contentType,
                                                  savedCharset: response.savedCharset)
        #expect(decision.description == "UTF-8 (saved page's contentType: utf-8)")
    }

    @Test("a bad index says which line and what is wrong; a directory without one says what it needs")
    func badIndex() throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: SavedPageError.self) { try SavedPageDirectory.load(directory) }
        do {
            _ = try SavedPageDirectory.load(directory)
        } catch {
            #expect(error.description.contains("needs a pages.json mapping each URL to its file"))
        }
        for (index, expected) in [
            ("{\"book/1\": \"a.html\"}", "line 1: \"book/1\" is not an absolute http(s) URL"),
            ("{\"https://x.test/\": {\"file\": \"a.html\", \"methd\": \"GET\"}}", "unknown key \"methd\""),
            ("{\"https://x.test/\": \"missing.html\"}", "missing.html: cannot read the saved page"),
            ("[1]", "must be an object mapping each URL to a file name"),
        ] {
            try index.write(toFile: directory + "/pages.json", atomically: true, encoding: .utf8)
            do {
                _ = try SavedPageDirectory.load(directory)
                Issue.record("expected an error for \(index)")
            } catch {
                #expect(error.description.contains(expected), "\(error)")
            }
        }
    }

    @Test("fixture add: a saved page becomes a HAR entry replayed byte for byte; adding it again replaces it")
    func harFromSavedPages() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let gbk: [UInt8] = [0x3C, 0x70, 0x3E, 0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2]  // <p>第一章 in GBK
        var recording = HARRecording()
        let first = recording.add(SavedPage(url: nil, body: gbk, contentType: "text/html; charset=gbk", file: "c.html"), url: "https://x.test/1.html")
        let post = recording.add(SavedPage(url: nil, method: "POST", requestBody: Array("q=1".utf8), body: [0x61], file: "s"), url: "https://x.test/s")
        let again = recording.add(SavedPage(url: nil, body: gbk, contentType: "text/html; charset=gbk", file: "c.html"), url: "https://x.test/1.html")
        #expect(!first && !post && again)
        #expect(recording.entries.count == 2)
        try recording.write(to: directory + "/site.har")
        let replay = try HARReplayTransport(contentsOf: directory + "/site.har")
        let page = try await replay.send(HTTPRequest(url: "https://x.test/1.html"))
        #expect(page.body == gbk)
        #expect(page.contentType == "text/html; charset=gbk")
        #expect(try await replay.send(HTTPRequest(url: "https://x.test/s", method: "POST", body: Array("q=1".utf8))).body == [0x61])
    }

    @Test("ObservingTransport reports method, URL, status and bytes, or the failure")
    func observing() async throws {
        let heard = Locked<[String]>([])
        let transport = ObservingTransport(HARReplayTransport(recording: HARRecording()), origin: "replayed") { exchange in
            heard.withLock { $0.append(exchange.description) }
        }
        await #expect(throws: HARReplayError.self) { try await transport.send(HTTPRequest(url: "https://x.test/a")) }
        #expect(heard.withLock { $0 }.first?.hasPrefix("replayed GET https://x.test/a -> failed (no recorded response for GET https://x.test/a") == true)
    }
}
