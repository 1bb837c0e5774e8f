import BookRuleHTTPServer
import BookRuleEngine
import BookRuleLibrary
import BookRuleRules

/// The `bookSourceDebug` WebSocket endpoint of Legado's web service: the client sends `{"tag":
/// "<bookSourceUrl>", "key": "<keyword or URL>"}` and gets the debug log of that source's chain, one text
/// message per line as Legado's `Debug` writes it (`SourceDebugLog`), then a normal close.
///
/// The key says where the chain starts, as in Legado: a keyword searches (search → book → TOC → chapter), an
/// absolute URL is a book page, `title::URL` an explore page, `++URL` a TOC and `--URL` a chapter. A failing
/// step prints its error and ends the run.
public struct SourceDebugSocket: Sendable {
    /// Where the source named by `tag` is found.
    public let sources: ServeSourceCatalog
    /// What every request goes through: the one polite fetcher.
    public let stack: TransportStack
    /// The engine's limits and script cache.
    public let engineOptions: EngineOptions
    /// Time a client has to send its request after the handshake.
    public let requestSeconds: Double

    /// Creates the endpoint.
    public init(sources: ServeSourceCatalog, stack: TransportStack, engineOptions: EngineOptions = EngineOptions(),
                requestSeconds: Double = 30) {
        self.sources = sources
        self.stack = stack
        self.engineOptions = engineOptions
        self.requestSeconds = requestSeconds
    }

    /// Serves one connection (a `WebSocketEndpoints.Handler`).
    package func serve(_ session: WebSocketSession) async {
        defer { session.close(.normal, reason: "debug finished") }
        guard let text = await ServeSocketRequest.first(of: session, within: requestSeconds) else { return }
        let tag: String
        let key: String
        do {
            let request = try ServeSocketRequest(text)
            guard let source = request.value("tag"), let value = request.value("key") else {
                try? session.send("tag and key must not be empty")
                return
            }
            tag = source
            key = value
        } catch {
            try? session.send("\(error)")
            return
        }
        let source: BookSource
        do {
            guard let found = try await sources.source(tag) else {
                try? session.send("no source has bookSourceUrl \(tag)")
                return
            }
            source = found
        } catch {
            try? session.send("the sources cannot be read: \(error)")
            return
        }
        let output = Output(session: session, log: SourceDebugLog())
        let tracer = FetchLines(output: output)
        let engine = SourceEngine(source: source, connection: stack.transport(for: source),
                                  options: engineOptions, tracer: tracer)
        await Chain(engine: engine, output: output).run(key: key)
    }

    /// Sends log lines to the client.
    struct Output: Sendable {
        let session: WebSocketSession
        let log: SourceDebugLog

        func callAsFunction(_ message: String, showTime: Bool = true) {
            try? session.send(log.line(message, showTime: showTime))
        }

        func lines(_ messages: [String]) {
            messages.forEach { self($0) }
        }
    }

    /// Prints every page fetched as it arrives (`≡获取成功:URL`).
    final class FetchLines: RuleTracing {
        let output: Output
        init(output: Output) { self.output = output }
        func record(_ rule: Rule, values: [String], error: String?) {}
        func record(list rule: Rule, count: Int, error: String?) {}
        func record(fetch: FetchTrace) {
            guard fetch.error == nil else { return }
            output("≡获取成功:\(fetch.url)")
        }
    }

    /// The steps, each handing its result to the next.
    struct Chain: Sendable {
        let engine: SourceEngine
        let output: Output

        func run(key: String) async {
            if key.hasPrefix("http://") || key.hasPrefix("https://") {
                output("⇒开始访问详情页:\(key)")
                await info(url: key, variables: [:])
            } else if let range = key.range(of: "::") {
                let url = String(key[range.upperBound...])
                output("⇒开始访问发现页:\(url)")
                await explore(url: url)
            } else if key.hasPrefix("++") {
                let url = String(key.dropFirst(2))
                output("⇒开始访目录页:\(url)")
                await toc(url: url, book: nil)
            } else if key.hasPrefix("--") {
                let url = String(key.dropFirst(2))
                output("⇒开始访正文页:\(url)")
                await content(Chapter(index: 0, title: "调试", url: url), next: nil, book: nil)
            } else {
                output("⇒开始搜索关键字:\(key)")
                await search(key: key)
            }
        }

        private func failed(_ error: any Error) {
            output("\(error)")
        }

        func search(key: String) async {
            await books(start: "︾开始解析搜索页", done: "︽搜索页解析完成") { try await engine.search(key: key) }
        }

        func explore(url: String) async {
            await books(start: "︾开始解析发现页", done: "︽发现页解析完成") { try await engine.explore(url: url) }
        }

        /// A list of books read (search or explore): its lines, then the first book's page.
        private func books(start: String, done: String, _ read: () async throws -> SearchPage) async {
            output(start)
            let page: SearchPage
            do {
                page = try await read()
            } catch {
                failed(error)
                return
            }
            output.lines(SourceDebugLog.searchLines(page))
            guard let first = page.results.first else {
                output("︽未获取到书籍")
                return
            }
            output(done)
            output("", showTime: false)
            await info(url: first.bookURL, variables: first.variables)
        }

        func info(url: String, variables: [String: String]) async {
            output("︾开始解析详情页")
            do {
                let book = try await engine.bookInfo(url: url, variables: variables)
                output.lines(SourceDebugLog.infoLines(book))
                output("︽详情页解析完成")
                output("", showTime: false)
                guard engine.source.type != .file else {
                    output("≡文件类书源跳过解析目录")
                    return
                }
                await toc(url: book.tocURL, book: book)
            } catch {
                failed(error)
            }
        }

        func toc(url: String, book: BookInfo?) async {
            output("︾开始解析目录页")
            do {
                let toc = if let book { try await engine.toc(of: book) } else { try await engine.toc(url: url) }
                output.lines(SourceDebugLog.tocLines(toc))
                output("︽目录页解析完成")
                output("", showTime: false)
                // Volume headings that are no more than their title are not chapters (as Legado skips them).
                let chapters = toc.chapters.filter { !($0.isVolume && $0.url.hasPrefix($0.title)) && !$0.url.isEmpty }
                guard let first = chapters.first else {
                    output("≡没有正文章节")
                    return
                }
                await content(first, next: chapters.dropFirst().first, book: book)
            } catch {
                failed(error)
            }
        }

        func content(_ chapter: Chapter, next: Chapter?, book: BookInfo?) async {
            output("︾开始解析正文页")
            do {
                let content = try await engine.content(of: chapter, next: next, book: book, variables: book?.variables ?? [:])
                output.lines(SourceDebugLog.contentLines(content, chapter: chapter))
                output("︽正文页解析完成")
            } catch {
                failed(error)
            }
        }
    }
}
