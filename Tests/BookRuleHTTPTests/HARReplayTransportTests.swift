import Foundation
import Testing
@testable import BookRuleDocument
@testable import BookRuleHTTP
import BookRuleJSON
import TestSupport

/// A fresh directory for one test's files, removed by `remove()`.
private struct ScratchDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "bookrule-har-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// An entry with a GET (or given) request and a response, for hand-built recordings.
private func makeEntry(
    _ url: String, method: String = "GET", status: Int = 200, headers: [HTTPHeader] = [], body: [UInt8]? = [],
    postBody: [UInt8]? = nil
) -> HARRecording.Entry {
    HARRecording.Entry(
        startedDateTime: "2025-01-01T00:00:00.000Z", time: 1,
        request: HARRecording.Request(
            method: method, url: url,
            postData: postBody.map { HARRecording.PostData(mimeType: "application/x-www-form-urlencoded", body: $0) }),
        response: HARRecording.Response(
            status: status, headers: headers,
            content: HARRecording.Content(size: body?.count ?? 0, mimeType: "text/html", body: body)),
        timings: HARRecording.Timings(send: 0, wait: 1, receive: 0)
    )
}

/// `第一章` in GBK.
private let gbkBytes: [UInt8] = [0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2]

/// What Chromium DevTools writes for "Save all as HAR with content" (trimmed to three entries): `pages`,
/// `_initiator`, `_priority`, `_resourceType`, HTTP/2 pseudo-headers, full timings, an empty `cache`, a text body,
/// a base64 body and a redirect without `content.text`.
private let chromiumHAR = #"""
{
  "log": {
    "version": "1.2",
    "creator": { "name": "WebInspector", "version": "537.36" },
    "pages": [
      {
        "startedDateTime": "2025-03-01T08:15:30.120Z",
        "id": "page_1",
        "title": "https://www.example-novel.test/book/42/",
        "pageTimings": { "onContentLoad": 412.5, "onLoad": 873.2 }
      }
    ],
    "entries": [
      {
        "_initiator": { "type": "other" },
        "_priority": "VeryHigh",
        "_resourceType": "document",
        "cache": {},
        "connection": "443",
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "https://www.example-novel.test/book/42",
          "httpVersion": "http/2.0",
          "headers": [
            { "name": ":authority", "value": "www.example-novel.test" },
            { "name": ":method", "value": "GET" },
            { "name": ":path", "value": "/book/42" },
            { "name": ":scheme", "value": "https" },
            { "name": "user-agent", "value": "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36" }
          ],
          "queryString": [],
          "cookies": [],
          "headersSize": -1,
          "bodySize": 0
        },
        "response": {
          "status": 301,
          "statusText": "",
          "httpVersion": "http/2.0",
          "headers": [
            { "name": "content-length", "value": "0" },
            { "name": "location", "value": "/book/42/" }
          ],
          "cookies": [],
          "content": { "size": 0, "mimeType": "x-unknown" },
          "redirectURL": "/book/42/",
          "headersSize": -1,
          "bodySize": -1,
          "_transferSize": 112,
          "_error": null,
          "_fetchedViaServiceWorker": false
        },
        "serverIPAddress": "203.0.113.7",
        "startedDateTime": "2025-03-01T08:15:30.119Z",
        "time": 61.27,
        "timings": {
          "blocked": 2.1, "dns": 10.4, "ssl": 21.0, "connect": 35.2, "send": 0.3, "wait": 22.8, "receive": 0.47,
          "_blocked_queueing": 1.2, "_workerStart": -1, "_workerReady": -1
        }
      },
      {
        "_initiator": { "type": "other" },
        "_priority": "VeryHigh",
        "_resourceType": "document",
        "cache": {},
        "connection": "443",
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "https://www.example-novel.test/book/42/",
          "httpVersion": "http/2.0",
          "headers": [
            { "name": ":authority", "value": "www.example-novel.test" },
            { "name": "accept", "value": "text/html,application/xhtml+xml" }
          ],
          "queryString": [],
          "cookies": [ { "name": "sid", "value": "abc", "path": "/", "domain": ".example-novel.test", "expires": "2026-01-01T00:00:00.000Z", "httpOnly": true, "secure": true } ],
          "headersSize": -1,
          "bodySize": 0
        },
        "response": {
          "status": 200,
          "statusText": "",
          "httpVersion": "http/2.0",
          "headers": [
            { "name": "content-type", "value": "text/html; charset=utf-8" },
            { "name": "content-encoding", "value": "br" }
          ],
          "cookies": [],
          "content": {
            "size": 83,
            "mimeType": "text/html",
            "compression": 20,
            "text": "<html><body><h1>书名</h1>\n<a href=\"/book/42/1.html\">第一章</a></body></html>"
          },
          "redirectURL": "",
          "headersSize": -1,
          "bodySize": 63,
          "_transferSize": 401,
          "_error": null
        },
        "serverIPAddress": "203.0.113.7",
        "startedDateTime": "2025-03-01T08:15:30.181Z",
        "time": 48.9,
        "timings": { "blocked": 0.8, "dns": -1, "ssl": -1, "connect": -1, "send": 0.2, "wait": 47.1, "receive": 0.8, "_blocked_queueing": 0.5 }
      },
      {
        "_initiator": { "type": "parser", "url": "https://www.example-novel.test/book/42/", "lineNumber": 1 },
        "_priority": "High",
        "_resourceType": "document",
        "cache": {},
        "connection": "443",
        "pageref": "page_1",
        "request": {
          "method": "GET",
          "url": "https://www.example-novel.test/book/42/1.html",
          "httpVersion": "http/2.0",
          "headers": [],
          "queryString": [],
          "cookies": [],
          "headersSize": -1,
          "bodySize": 0
        },
        "response": {
          "status": 200,
          "statusText": "",
          "httpVersion": "http/2.0",
          "headers": [ { "name": "content-type", "value": "text/html; charset=gbk" } ],
          "cookies": [],
          "content": { "size": 6, "mimeType": "text/html", "text": "tdrSu9XC", "encoding": "base64" },
          "redirectURL": "",
          "headersSize": -1,
          "bodySize": 6,
          "_transferSize": 210,
          "_error": null
        },
        "serverIPAddress": "203.0.113.7",
        "startedDateTime": "2025-03-01T08:15:30.300Z",
        "time": 20.5,
        "timings": { "blocked": 0.4, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 19.6, "receive": 0.4 }
      }
    ]
  }
}
"""#

@Suite("HAR recording and replay")
struct HARReplayTransportTests {
    @Test("a GBK body round-trips byte-exact through append, write, load and replay")
    func gbkRoundTrip() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/site.har"
        let utf8Body = Array("<p>第一章\r\n</p>\u{0}\u{FEFF}\"\\/".utf8)
        var recording = HARRecording()
        recording.append(
            request: HTTPRequest(url: "http://x.test/gbk.html"),
            response: HTTPResponse(
                url: "http://x.test/gbk.html", status: 200,
                headers: [HTTPHeader("Content-Type", "text/html; charset=gbk")], body: gbkBytes),
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: .milliseconds(250))
        recording.append(
            request: HTTPRequest(url: "http://x.test/search", method: "POST", body: [0x71, 0x3D] + gbkBytes),
            response: HTTPResponse(url: "http://x.test/search", status: 200, body: utf8Body),
            startedAt: Date(timeIntervalSince1970: 1_700_000_001), duration: .seconds(1))
        try recording.write(to: path)

        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains(#""text": "tdrSu9XC""#))
        #expect(text.contains(#""encoding": "base64""#))
        #expect(text.contains(#"<p>第一章\r\n</p>\u0000\ufeff\"\\/"#), "valid UTF-8 is written as text")
        #expect(text.contains(#""time": 250"#))
        #expect(text.contains(#""startedDateTime": "2023-11-14T22:13:20.000Z""#))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["site.har"])

        let loaded = try HARRecording.load(contentsOf: path)
        #expect(loaded == recording)
        #expect(loaded.entries[0].response.content.body == gbkBytes)
        #expect(loaded.entries[1].request.postData?.body == [0x71, 0x3D] + gbkBytes)

        let transport = try HARReplayTransport(contentsOf: path)
        let page = try await transport.send(HTTPRequest(url: "http://x.test/gbk.html"))
        #expect(page.body == gbkBytes)
        #expect(page.contentType == "text/html; charset=gbk")
        let search = try await transport.send(HTTPRequest(url: "http://x.test/search", method: "POST", body: [0x71, 0x3D] + gbkBytes))
        #expect(search.body == utf8Body)
    }

    @Test("a HAR recording is written by JSONWriter: its text is the pretty text of its own JSON value")
    func harTextIsJSONWritersText() throws {
        var recording = HARRecording()
        recording.append(
            request: HTTPRequest(url: "http://x.test/a.html", headers: [HTTPHeader("Cookie", "a=1")]),
            response: HTTPResponse(
                url: "http://x.test/a.html", status: 200, headers: [HTTPHeader("Set-Cookie", "b=2; Path=/")],
                body: Array("\u{FEFF}\u{8}\u{C}书/".utf8)),
            startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: .milliseconds(1.5))
        let bytes = recording.jsonBytes()
        #expect(bytes == JSONWriter.bytes(try JSONParser.parse(bytes).value, style: .pretty))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""text": "\ufeff\b\f书/""#))
        #expect(String(decoding: bytes, as: UTF8.self).contains(#""time": 1.5,"#))
    }

    @Test("the recorded fixtures are written again byte for byte: one writer, one format, before and after")
    func fixturesAreWrittenAgainByteForByte() throws {
        for name in ["example-gbk/site.har", "example-gbk/book.har", "example-utf8/site.har", "example-allinone/site.har"] {
            let path = SharedCorpus.repositoryRoot + "/Fixtures/" + name
            let bytes = try LocalFile.read(path)
            #expect(try HARRecording.parse(bytes, path: path).jsonBytes() == bytes, "\(name)")
        }
    }

    @Test("a HAR exported by Chromium DevTools loads and replays")
    func chromiumExport() async throws {
        let recording = try HARRecording.parse(Array(chromiumHAR.utf8), path: "Fixtures/novel/site.har")
        #expect(recording.creator.name == "WebInspector")
        #expect(recording.entries.count == 3)
        #expect(recording.entries[0].response.content.body == nil)
        #expect(recording.entries[0].timings.wait == 22.8)
        #expect(recording.entries[1].request.cookies.first?.httpOnly == true)
        #expect(recording.entries[1].response.content.compression == 20)
        #expect(recording.entries[2].response.content.body == gbkBytes)

        let transport = HARReplayTransport(recording: recording)
        let index = try await transport.send(HTTPRequest(url: "https://www.example-novel.test/book/42"))
        #expect(index.status == 200)
        #expect(index.url == "https://www.example-novel.test/book/42/")
        #expect(String(decoding: index.body, as: UTF8.self).contains("<h1>书名</h1>"))
        #expect(index.contentType == "text/html; charset=utf-8")
        let chapter = try await transport.send(HTTPRequest(url: "https://www.example-novel.test/book/42/1.html"))
        #expect(chapter.body == gbkBytes)
    }

    @Test("recorded redirects are followed to the final URL")
    func redirects() async throws {
        let transport = HARReplayTransport(recording: HARRecording(entries: [
            makeEntry("http://x.test/old", status: 301, headers: [HTTPHeader("Location", "/new")]),
            makeEntry("http://x.test/new", status: 302, headers: [HTTPHeader("Location", "https://x.test/final?id=1")]),
            makeEntry("https://x.test/final?id=1", body: Array("final".utf8)),
            makeEntry("https://x.test/login", method: "POST", status: 302, headers: [HTTPHeader("Location", "home")], postBody: [0x61]),
            makeEntry("https://x.test/home", body: Array("home".utf8)),
            makeEntry("https://x.test/a", status: 302, headers: [HTTPHeader("Location", "/b")]),
            makeEntry("https://x.test/b", status: 307, headers: [HTTPHeader("Location", "/a")]),
            makeEntry("https://x.test/evil", status: 302, headers: [HTTPHeader("Location", "file:///etc/passwd")]),
        ]))
        let final = try await transport.send(HTTPRequest(url: "http://x.test/old"))
        #expect(final.status == 200)
        #expect(final.url == "https://x.test/final?id=1")
        #expect(final.body == Array("final".utf8))

        let home = try await transport.send(HTTPRequest(url: "https://x.test/login", method: "POST", body: [0x61]))
        #expect(home.url == "https://x.test/home")
        #expect(home.body == Array("home".utf8))

        #expect(throws: HARReplayError.redirectLoop(url: "https://x.test/a")) {
            _ = try transport.replay(HTTPRequest(url: "https://x.test/a"))
        }
        #expect(throws: HARReplayError.invalidRedirect(from: "https://x.test/evil", location: "file:///etc/passwd")) {
            _ = try transport.replay(HTTPRequest(url: "https://x.test/evil"))
        }
    }

    @Test("a request that was not recorded names the method and URL")
    func missingEntry() async throws {
        let transport = HARReplayTransport(recording: HARRecording(entries: [makeEntry("https://x.test/b.html")]))
        do {
            _ = try await transport.send(HTTPRequest(url: "https://x.test/a.html"))
            Issue.record("expected notRecorded")
        } catch let error as HARReplayError {
            #expect(error == .notRecorded(method: "GET", url: "https://x.test/a.html", body: nil))
            #expect(error.description
                == "no recorded response for GET https://x.test/a.html in the fixture; save that page and add it with "
                + "`bookrule fixture add HAR 'https://x.test/a.html' SAVED_PAGE` (or re-record with --record)")
        }
    }

    @Test("POST requests are matched by body")
    func postMatchedByBody() async throws {
        let transport = HARReplayTransport(recording: HARRecording(entries: [
            makeEntry("https://x.test/search", method: "POST", body: Array("results for a".utf8), postBody: Array("q=a".utf8)),
            makeEntry("https://x.test/search", method: "POST", body: Array("results for b".utf8), postBody: Array("q=b".utf8)),
        ]))
        let b = try await transport.send(HTTPRequest(url: "https://x.test/search", method: "POST", body: Array("q=b".utf8)))
        #expect(b.body == Array("results for b".utf8))
        let a = try await transport.send(HTTPRequest(url: "https://x.test/search", method: "post", body: Array("q=a".utf8)))
        #expect(a.body == Array("results for a".utf8))
        #expect(throws: HARReplayError.notRecorded(method: "POST", url: "https://x.test/search", body: Array("q=c".utf8))) {
            _ = try transport.replay(HTTPRequest(url: "https://x.test/search", method: "POST", body: Array("q=c".utf8)))
        }
        // The message names the body that was asked for and the command that adds the missing answer.
        let missing = HARReplayError.notRecorded(method: "POST", url: "https://x.test/search", body: Array("q=%D0%C7".utf8))
        #expect(missing.description.contains("POST https://x.test/search with body \"q=%D0%C7\""))
        #expect(missing.description.contains("`bookrule fixture add HAR 'https://x.test/search' SAVED_PAGE --method POST --body 'q=%D0%C7'`"))
        #expect(throws: HARReplayError.notRecorded(method: "GET", url: "https://x.test/search", body: nil)) {
            _ = try transport.replay(HTTPRequest(url: "https://x.test/search"))
        }
    }

    @Test("repeated entries come back in recorded order and the last one repeats")
    func repeatedEntries() async throws {
        let transport = HARReplayTransport(recording: HARRecording(entries: [
            makeEntry("https://x.test/poll", body: [0x31]),
            makeEntry("https://x.test/other", body: [0x39]),
            makeEntry("https://x.test/poll", body: [0x32]),
            makeEntry("https://x.test/poll", body: [0x33]),
        ]))
        var bodies: [[UInt8]] = []
        for _ in 0..<5 {
            bodies.append(try await transport.send(HTTPRequest(url: "https://x.test/poll")).body)
        }
        #expect(bodies == [[0x31], [0x32], [0x33], [0x33], [0x33]])
    }

    @Test("URLs match after normalising percent-encoding, hex case and the fragment")
    func normalisedMatch() async throws {
        let transport = HARReplayTransport(recording: HARRecording(entries: [
            makeEntry("https://x.test/%E4%B9%A6/1.html?q=%e4%b8%ad", body: [0x31]),
        ]))
        let response = try await transport.send(HTTPRequest(url: "https://X.test/书/1.html?q=中#top"))
        #expect(response.body == [0x31])
        #expect(response.url == "https://x.test/%E4%B9%A6/1.html?q=%e4%b8%ad")
        #expect(throws: HARReplayError.self) {
            _ = try transport.replay(HTTPRequest(url: "https://x.test/书/2.html"))
        }
    }

    @Test("append infers a redirect when the transport reports another final URL")
    func appendInfersRedirect() async throws {
        var recording = HARRecording()
        recording.append(
            request: HTTPRequest(url: "http://x.test/书"),
            response: HTTPResponse(url: "http://x.test/%E4%B9%A6", status: 200, body: [0x41]),
            startedAt: Date(), duration: .zero)
        #expect(recording.entries.count == 1, "percent-encoding alone is not a redirect")
        recording.append(
            request: HTTPRequest(url: "http://x.test/go"),
            response: HTTPResponse(url: "https://y.test/landed", status: 200, body: [0x42]),
            startedAt: Date(), duration: .zero)
        #expect(recording.entries.count == 3)
        #expect(recording.entries[1].response.status == 302)
        #expect(recording.entries[1].response.redirectURL == "https://y.test/landed")
        let response = try await HARReplayTransport(recording: recording).send(HTTPRequest(url: "http://x.test/go"))
        #expect(response.url == "https://y.test/landed")
        #expect(response.body == [0x42])
    }

    @Test("load errors name the file, the entry and the field")
    func loadErrors() throws {
        let badBase64 = chromiumHAR.replacingOccurrences(of: "tdrSu9XC", with: "tdr*u9XC")
        let lines = badBase64.split(separator: "\n", omittingEmptySubsequences: false)
        let line = try #require(lines.firstIndex { $0.contains("tdr*u9XC") }) + 1
        do {
            _ = try HARRecording.parse(Array(badBase64.utf8), path: "Fixtures/x/site.har")
            Issue.record("expected invalid base64")
        } catch let error as HARError {
            #expect(error == .invalid(path: "Fixtures/x/site.har", entry: 3, field: "response.content.text",
                                      problem: "is not valid base64", line: line))
            #expect(error.description
                == "Fixtures/x/site.har: entry 3: response.content.text is not valid base64 (line \(line))")
        }
        let noStatus = """
            {"log": {"entries": [
              {"request": {"method": "GET", "url": "https://x.test/"}, "response": {}}
            ]}}
            """
        #expect(throws: HARError.invalid(path: "a.har", entry: 1, field: "response.status", problem: "is missing",
                                         line: 2)) {
            _ = try HARRecording.parse(Array(noStatus.utf8), path: "a.har")
        }
        #expect(throws: HARError.invalid(path: "a.har", entry: nil, field: "log", problem: "is missing", line: 1)) {
            _ = try HARRecording.parse(Array("{}".utf8), path: "a.har")
        }
        let wrongType = #"{"log": {"entries": [{"request": {"method": "GET", "url": 5}, "response": {"status": 200}}]}}"#
        #expect(throws: HARError.invalid(path: "a.har", entry: 1, field: "request.url", problem: "is not a string",
                                         line: 1)) {
            _ = try HARRecording.parse(Array(wrongType.utf8), path: "a.har")
        }
        do {
            _ = try HARRecording.parse(Array("{\"log\": [1,".utf8), path: "a.har")
            Issue.record("expected notJSON")
        } catch let error as HARError {
            guard case .notJSON(let path, let reason) = error else { throw error }
            #expect(path == "a.har")
            #expect(error.description.hasPrefix("a.har: not a HAR file: invalid JSON at line 1, column "), "\(reason)")
        }
        do {
            _ = try HARRecording.load(contentsOf: "/nonexistent-dir/none.har")
            Issue.record("expected cannotRead")
        } catch let error as HARError {
            #expect(error.description.hasPrefix("/nonexistent-dir/none.har: cannot read the HAR file: "))
            #expect(error.description.contains("No such file"))
        }
        #expect(throws: HARError.self) {
            try HARRecording().write(to: "/nonexistent-dir/out.har")
        }
    }

    @Test("writing replaces an existing file and leaves no temporary file behind")
    func atomicOverwrite() throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let path = scratch.path + "/site.har"
        try Array("old".utf8).withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: path)) }
        let recording = HARRecording(entries: [makeEntry("https://x.test/", body: [0xFF, 0x00])])
        try recording.write(to: path)
        #expect(try HARRecording.load(contentsOf: path) == recording)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == ["site.har"])
    }
}

@Suite("Recording through RecordingTransport")
struct RecordingTransportTests {
    @Test("a GBK body recorded live replays byte-exact after a round trip through a HAR file")
    func gbkRoundTrip() async throws {
        let body = Array("<html><head><meta charset=gbk></head><body>".utf8) + [0xB5, 0xDA, 0xD2, 0xBB, 0xD5, 0xC2, 0xFF]
            + Array("</body></html>".utf8)
        let site = TestSite(["https://gbk.test/1.html": .init(headers: [HTTPHeader("Content-Type", "text/html; charset=gbk")], body: body)])
        let recorder = RecordingTransport(upstream: site)
        let live = try await recorder.send(HTTPRequest(url: "https://gbk.test/1.html"))
        #expect(live.body == body)
        let path = NSTemporaryDirectory() + "bookrule-record-\(UUID().uuidString).har"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try recorder.recording.write(to: path)
        let replayed = try await HARReplayTransport(contentsOf: path).send(HTTPRequest(url: "https://gbk.test/1.html"))
        #expect(replayed.body == body)
        #expect(replayed.status == 200)
        #expect(replayed.headers.value(for: "content-type") == "text/html; charset=gbk")
        let document = try HTMLDocument(bytes: replayed.body, url: replayed.url, contentType: replayed.contentType)
        #expect(try evaluate("//body/text()", on: document) == ["第一章\u{FFFD}"])
    }
}
