import BookRuleEngine
import BookRuleHTTPServer
import BookRuleLibrary

/// The `rssSourceDebug` WebSocket endpoint of Legado's web service (its RssSourceDebugWebSocket): the client
/// sends `{"tag": "<sourceUrl>"}` and gets the debug log of that RSS source, one text message per line as
/// Legado's `Debug.startDebug(rssSource)` writes it (`SourceDebugLog`'s stamps and markers), then a normal
/// close with Legado's reason, 调试结束.
///
/// The run is Legado's: the first sort's first page (read as a feed without `ruleArticles`, else by the rules,
/// the first article's fields shown); then, for a source read by rules without `ruleDescription`, the first
/// article's page with `ruleContent`. A failing step prints its error and ends the run.
package struct RssSourceDebugSocket: Sendable {
    /// Where the RSS source named by `tag` is found (`ServeSourceCatalog.rssSource`).
    package let sources: ServeSourceCatalog
    /// What every request goes through: the one polite fetcher.
    package let stack: TransportStack
    /// The engine's limits and script cache.
    package let engineOptions: EngineOptions
    /// Time a client has to send its request after the handshake.
    package let requestSeconds: Double

    /// The close reason Legado's endpoint gives.
    static let closeReason = "调试结束"

    /// Creates the endpoint.
    package init(sources: ServeSourceCatalog, stack: TransportStack, engineOptions: EngineOptions = EngineOptions(),
                requestSeconds: Double = 30) {
        self.sources = sources
        self.stack = stack
        self.engineOptions = engineOptions
        self.requestSeconds = requestSeconds
    }

    /// Serves one connection (a `WebSocketEndpoints.Handler`).
    package func serve(_ session: WebSocketSession) async {
        defer { session.close(.normal, reason: Self.closeReason) }
        guard let text = await ServeSocketRequest.first(of: session, within: requestSeconds) else { return }
        let tag: String
        do {
            guard let value = try ServeSocketRequest(text).value("tag") else {
                try? session.send("不能为空 (tag, the RSS source's sourceUrl, must not be empty)")
                return
            }
            tag = value
        } catch {
            // Legado's words for a message that is not JSON.
            try? session.send("数据必须为Json格式 (\(error))")
            return
        }
        let source: RssSource
        do {
            guard let found = try await sources.rssSource(tag) else {
                try? session.send("未找到源 (no RSS source has sourceUrl \(tag))")
                return
            }
            source = found
        } catch {
            try? session.send("the RSS sources cannot be read: \(error)")
            return
        }
        let output = SourceDebugSocket.Output(session: session, log: SourceDebugLog())
        let reader = RssReader(source: source, connection: stack.transport(for: source.engineSource), options: engineOptions)
        await Self.run(reader, output: output)
    }

    /// Legado's run, line by line.
    static func run(_ reader: RssReader, output: SourceDebugSocket.Output) async {
        let source = reader.source
        output("︾开始解析")
        let page: RssArticlePage
        do {
            guard let sort = try await reader.sorts().first else { throw RssError.noSorts }
            page = try await reader.articles(in: sort, page: 1)
        } catch {
            output("\(error)")
            return
        }
        output("≡获取成功:\(source.url)")
        output.lines(listLines(page, source: source))
        guard let first = page.articles.first else {
            output("⇒列表页解析成功，为空")
            output("︽解析完成")
            return
        }
        guard !source.rules.readsFeed, source.rules.texts[.ruleDescription] == nil else {
            output("⇒存在描述规则，不解析内容页")
            output("︽解析完成")
            return
        }
        output("︽列表页解析完成")
        output("", showTime: false)
        guard source.rules.texts[.ruleContent] != nil else {
            output("⇒内容规则为空，默认获取整个网页")
            return
        }
        output("︾开始解析内容页")
        do {
            let content = try await reader.text(of: first)
            output("≡获取成功:\(source.url)")
            output.lines(content.warnings.map { "≡\($0)" })
            output(content.text)
            output("︽内容页解析完成")
        } catch {
            output("\(error)")
        }
    }

    /// What the list page gave, as Legado's parsers log it: for rules the list's size and the next page, then
    /// the first article's fields; for a feed the fields alone.
    static func listLines(_ page: RssArticlePage, source: RssSource) -> [String] {
        var lines: [String] = []
        if page.readAsFeed {
            lines.append("⇒列表规则为空, 使用默认规则解析")
        } else {
            lines += SourceDebugLog.field("获取列表", "列表大小:\(page.articles.count)")
            if source.rules.texts[.ruleNextPage] != nil {
                lines += SourceDebugLog.field("获取下一页链接", page.nextPage ?? "")
            }
        }
        if let first = page.articles.first {
            lines += SourceDebugLog.field("获取标题", first.title)
            lines += SourceDebugLog.field("获取时间", first.pubDate ?? "")
            lines += SourceDebugLog.field("获取描述", first.description ?? (page.readAsFeed ? "null" : "描述规则为空，将会解析内容页"))
            lines += SourceDebugLog.field("获取图片url", first.image ?? (page.readAsFeed ? "null" : ""))
            lines += SourceDebugLog.field("获取文章链接", first.link)
        }
        lines += page.warnings.map { "≡\($0)" }
        return lines
    }
}
