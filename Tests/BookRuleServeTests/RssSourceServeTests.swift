import BookRuleEngine
import BookRuleHTTP
import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("RSS sources in serve: Legado's RssSourceController and the rssSourceDebug socket", .serialized,
       .timeLimit(.minutes(2 * TestTime.scale)))
struct RssSourceServeTests {
    static let feedSource = #"{"sourceUrl": "https://feed.test/rss", "sourceName": "新闻 Feed", "sortUrl": "要闻::/rss.xml", "kept": {"x": 1}}"#

    @Test("getRssSources/getRssSource write the entity with Legado's defaults; save, save many, delete; Legado's error texts; book sources kept apart")
    func controller() async throws {
        let workspace = try await ServeWorkspace(chapters: 2, saved: 1)
        let empty = try await workspace.get("/getRssSources")
        #expect(empty["isSuccess"]?.value == .bool(false))
        #expect(empty["errorMsg"]?.value.stringValue?.hasPrefix("源列表为空") == true)

        #expect(try ServeWorkspace.data(try await workspace.post("/saveRssSource", Self.feedSource)) == .string(""))
        let all = try #require(try ServeWorkspace.data(try await workspace.get("/getRssSources")).arrayValue)
        let entity = try #require(all.first?.value.objectValue)
        #expect(all.count == 1)
        #expect(entity.keys == ["sourceUrl", "sourceName", "sourceIcon", "enabled", "enabledCookieJar", "sortUrl",
                                "singleUrl", "articleStyle", "enableJs", "loadWithBaseUrl", "lastUpdateTime", "customOrder", "kept"])
        #expect(entity["sourceIcon"]?.value == .string("") && entity["enabled"]?.value == .bool(true))
        #expect(entity["singleUrl"]?.value == .bool(false) && entity["articleStyle"]?.value == .number("0"))
        #expect(entity["kept"]?.value.objectValue?["x"]?.value == .number("1"), "a member the entity lacks is kept")
        let one = try ServeWorkspace.data(try await workspace.get("/getRssSource?url=" + ServeWorkspace.encoded("https://feed.test/rss")))
        #expect(one.objectValue?["sourceName"]?.value == .string("新闻 Feed"))

        let batch = #"[{"sourceUrl": "https://blog.test/", "sourceName": "博客", "ruleArticles": "//article"}, {"sourceUrl": "https://x.test/", "sourceName": " "}]"#
        let saved = try #require(try ServeWorkspace.data(try await workspace.post("/saveRssSources", batch)).arrayValue)
        #expect(saved.compactMap { $0.value.objectValue?["sourceUrl"]?.value.stringValue } == ["https://blog.test/"],
                "a source with a blank name is skipped")
        #expect(try workspace.store.storedRssSources().map(\.sourceURL) == ["https://blog.test/", "https://feed.test/rss"])
        // Book sources and RSS sources are apart: the book-source list still holds the book source alone.
        let books = try #require(try ServeWorkspace.data(try await workspace.get("/getBookSources")).arrayValue)
        #expect(books.count == 1 && books.allSatisfy { $0.value.objectValue?["sourceUrl"] == nil })

        #expect(try ServeWorkspace.data(try await workspace.post("/deleteRssSources", #"[{"sourceUrl": "https://blog.test/"}]"#)) == .string("已执行"))
        #expect(try workspace.store.storedRssSources().map(\.sourceURL) == ["https://feed.test/rss"])

        for (target, body, message) in [
            ("/saveRssSource", "", "数据不能为空"), ("/saveRssSource", "{not json", "转换源失败"), ("/saveRssSource", "[1]", "转换源失败"),
            ("/saveRssSource", #"{"sourceUrl": "https://a.test/"}"#, "源名称和URL不能为空"), ("/saveRssSources", "[]", "转换源失败"),
            ("/saveRssSources", "[1]", "转换源失败"), ("/deleteRssSources", "", "没有传递数据"), ("/deleteRssSources", "{}", "格式不对"),
        ] {
            let answer = try await workspace.post(target, body)
            #expect(answer["isSuccess"]?.value == .bool(false), "\(target) \(body)")
            #expect(answer["errorMsg"]?.value.stringValue?.hasPrefix(message) == true, "\(target) \(body): \(answer["errorMsg"]?.value.stringValue ?? "")")
        }
        let missing = try await workspace.get("/getRssSource?url=" + ServeWorkspace.encoded("https://none.test/"))
        #expect(missing["errorMsg"]?.value.stringValue?.hasPrefix("未找到源，请检查源地址") == true)
    }

    /// A loopback site with a feed, a rules list and an article page; RSS sources on it; a socket server with
    /// Legado's routes over them.
    struct DebugSite {
        let site: LoopbackServer
        let server: HTTPServer
        let port: UInt16
        let base: String

        init() throws {
            site = try LoopbackServer(maxConnections: 20, lifetime: 60) { request, port in
                let base = "http://127.0.0.1:\(port)"
                let pages: [String: String] = [
                    "/rss.xml": "<rss><channel><item><title>头条</title><link>\(base)/a/1</link><pubDate>Mon, 07 Dec 2026</pubDate><description>摘要</description></item></channel></rss>",
                    "/list.html": "<html><body><article><h2>文章一</h2><a href='/post/1.html'>more</a></article></body></html>",
                    "/post/1.html": "<html><body><div class='body'><p>正文一</p><p>正文二</p></div></body></html>",
                ]
                guard let page = pages[request.target] else { return LoopbackServer.reply(404, "Not Found") }
                return LoopbackServer.reply(200, "OK", headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8))
            }
            base = "http://127.0.0.1:\(site.port)"
            let json = """
            [{"sourceUrl": "\(base)/feed", "sourceName": "Feed", "sortUrl": "要闻::/rss.xml"},
             {"sourceUrl": "\(base)/rules", "sourceName": "Rules", "sortUrl": "列表::/list.html", "ruleArticles": "//article",
              "ruleTitle": "//h2/text()", "ruleLink": "//a/@href", "ruleContent": "//div[@class='body']/p/text()"},
             {"sourceUrl": "\(base)/broken", "sourceName": "Broken", "sortUrl": "无::/missing.html", "ruleArticles": "//li"}]
            """
            let rss = try SourceFile.load(bytes: Array(json.utf8), path: "rss.json").rssSources
            var policy = PolitenessPolicy.default
            policy.delay = .zero
            policy.failureDelay = .zero
            policy.maxAttempts = 1
            let stack = TransportStack.live(policy: policy, hostStatePath: nil)
            server = try LegadoSocketSite.server(routes: ServeSocketRoutes.legado(sources: .fixed([], rssSources: rss), stack: stack))
            port = server.port
        }

        func exchange(_ request: String) async throws -> (messages: [String], close: WebSocketWireClient.Frame?) {
            let client = try WebSocketWireClient(port: port)
            guard try await client.open("/rssSourceDebug") == 101 else { throw TestFailure("handshake refused") }
            try await client.write(WebSocketWireClient.text(request))
            let frames = try await client.framesUntilEnd()
            return (frames.filter { $0.opcode == 0x1 }.map(\.text), frames.last { $0.opcode == 0x8 })
        }
    }

    @Test("rssSourceDebug streams Legado's lines to the end and closes with 调试结束: a feed, rules with the content page, a failure, an unknown source")
    func debugSocket() async throws {
        let debug = try DebugSite()
        let feed = try await debug.exchange(#"{"tag": "\#(debug.base)/feed"}"#)
        #expect(feed.messages.map(SourceDebugSocketTests.withoutStamp) == [
            "︾开始解析", "≡获取成功:\(debug.base)/feed", "⇒列表规则为空, 使用默认规则解析", "┌获取标题", "└头条", "┌获取时间",
            "└Mon, 07 Dec 2026", "┌获取描述", "└摘要", "┌获取图片url", "└null", "┌获取文章链接", "└\(debug.base)/a/1",
            "⇒存在描述规则，不解析内容页", "︽解析完成",
        ])
        #expect(feed.close?.closeCode == 1000)
        #expect(feed.close.map { String(decoding: $0.payload.dropFirst(2), as: UTF8.self) } == "调试结束")
        for line in feed.messages { #expect(line.wholeMatch(of: /\[\d\d:\d\d\.\d\d\d\] (.|\n)*/) != nil, "\(line)") }

        let rules = try await debug.exchange(#"{"tag": "\#(debug.base)/rules"}"#)
        #expect(rules.messages.map(SourceDebugSocketTests.withoutStamp) == [
            "︾开始解析", "≡获取成功:\(debug.base)/rules", "┌获取列表", "└列表大小:1", "┌获取标题", "└文章一", "┌获取时间", "└",
            "┌获取描述", "└描述规则为空，将会解析内容页", "┌获取图片url", "└", "┌获取文章链接", "└\(debug.base)/post/1.html",
            "︽列表页解析完成", "", "︾开始解析内容页", "≡获取成功:\(debug.base)/rules", "正文一\n正文二", "︽内容页解析完成",
        ])
        #expect(rules.close?.closeCode == 1000)

        let broken = try await debug.exchange(#"{"tag": "\#(debug.base)/broken"}"#)
        #expect(broken.messages.first.map(SourceDebugSocketTests.withoutStamp) == "︾开始解析")
        #expect(broken.messages.count == 2 && broken.messages.last?.contains("404") == true, "\(broken.messages)")

        let unknown = try await debug.exchange(#"{"tag": "http://nowhere.test/"}"#)
        #expect(unknown.messages == ["未找到源 (no RSS source has sourceUrl http://nowhere.test/)"])
        let notJSON = try await debug.exchange("tag")
        #expect(notJSON.messages.first?.hasPrefix("数据必须为Json格式") == true && notJSON.close?.closeCode == 1000)
        await debug.server.stopAwaitingWebSocketHandlers()
    }
}
