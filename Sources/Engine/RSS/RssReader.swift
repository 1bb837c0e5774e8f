import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// Runs one RSS source against its site, as Legado's `Rss` does: its sorts, a sort's articles page by page,
/// an article's text.
///
/// Every page goes through a `SourceEngine` over the source's fetching half (`RssSource.engineSource`): the
/// same transport (polite fetcher, recording, replay), headers, cookies, login and script runtime as a book
/// source, and the same rule evaluation; nothing here fetches or evaluates on its own.
public struct RssReader: Sendable {
    /// The source whose rules run.
    public let source: RssSource
    /// The engine every page and script goes through.
    public let engine: SourceEngine

    /// A reader for `source` sending requests through `connection` (what `TransportStack.transport(for:)` gives
    /// for `source.engineSource`), with its cookie jar and login.
    public init(source: RssSource, connection: SourceTransport, options: EngineOptions = EngineOptions(),
                tracer: (any RuleTracing)? = nil) {
        self.source = source
        engine = SourceEngine(source: source.engineSource, connection: connection, options: options, tracer: tracer,
                              needsScripts: source.hasScripts)
    }

    /// A reader for `source` sending requests through `transport` as it is (no cookie jar or login of its own).
    public init(source: RssSource, transport: any HTTPTransport, options: EngineOptions = EngineOptions(),
                tracer: (any RuleTracing)? = nil) {
        self.init(source: source, connection: SourceTransport(plain: transport), options: options, tracer: tracer)
    }

    // MARK: - Sorts

    /// The source's sorts (分类): `sortUrl`'s `name::url` entries (as written, or as its JavaScript gives
    /// them), or the one sort `("", sourceUrl)` when there are none.
    public func sorts() async throws -> [RssSort] {
        try await engine.offPoolForScripts { try sortsStep() }
    }

    private func sortsStep() throws -> [RssSort] {
        try requireUsable()
        guard let text = source.sortURL, let code = RssSort.scriptCode(text) else {
            return RssSort.parse(source.sortURL, sourceURL: source.url)
        }
        let field = fieldPath("sortUrl")
        let snippet = ScriptSnippet(code: code, field: field, placement: .whole)
        guard let scripts = engine.scripts else { throw EngineError.missingRule(field: field) }
        let scope = try scripts.scope(ScriptBindings(page: 1, baseURL: source.url))
        do {
            let value = try scope.run(snippet, result: .none, in: .text(""),
                                      environment: RuleEnvironment(baseURL: source.url, script: scope))
            return RssSort.parse(value.strings.joined(separator: "\n"), sourceURL: source.url)
        } catch {
            throw EngineError.rule(url: source.url, error: RuleError(field: field, dialect: .javaScript, reason: "\(error)",
                                                                     rule: code))
        }
    }

    /// The sort called `name` (a sort's name, else its URL); the first sort when `name` is nil.
    public func sort(named name: String?) async throws -> RssSort {
        let sorts = try await sorts()
        guard let name else {
            guard let first = sorts.first else { throw RssError.noSorts }
            return first
        }
        if let match = sorts.first(where: { $0.name == name }) ?? sorts.first(where: { $0.url == name }) { return match }
        throw RssError.unknownSort(name, known: sorts.map(\.name))
    }

    // MARK: - Articles

    /// One page of `sort`'s articles: the sort's URL with `{{page}}` as `page`, read as a feed when the source
    /// has no `ruleArticles`, else by its rules; `nextPage` as `ruleNextPage` finds it.
    public func articles(in sort: RssSort, page: Int = 1) async throws -> RssArticlePage {
        try await engine.offPoolForScripts { try await articlesStep(sort, page: page) }
    }

    /// `articles(in:page:)` of the page at `url` (a `nextPage` a previous page gave) for the sort `sort`.
    public func articles(at url: String, sort: String) async throws -> RssArticlePage {
        try await articles(in: RssSort(name: sort, url: url), page: 1)
    }

    private func articlesStep(_ sort: RssSort, page: Int) async throws -> RssArticlePage {
        try requireUsable()
        let field = fieldPath("sortUrl")
        let request: HTTPRequest
        let webView: WebViewOptions?
        let template: URLTemplate
        do {
            template = try URLTemplate(sort.url, field: field)
            let bindings = ScriptBindings(page: page, baseURL: source.url)
            (request, webView) = try template.resolved(page: page, baseURL: source.url,
                                                       sourceHeaders: try engine.requestHeaders(bindings),
                                                       script: try engine.scripts?.scope(bindings))
        } catch let error as RuleError {
            throw EngineError.unusableRules(step: "RSS articles", problems: [
                SourceProblem(field: error.field, location: nil, dialect: error.dialect, reason: error.reason),
            ])
        }
        let document = try await engine.fetchDocument(request, charset: template.charset,
                                                      webView: webView.map { ($0, field) })
        var warnings = Warnings()
        SourceEngine.noteTruncation(document, &warnings)
        guard let listRule = source.rules[.ruleArticles] else {
            guard let articles = RssFeedParser.articles(utf8: Array(document.sourceText.utf8), url: document.url,
                                                        sort: sort.name, origin: source.url) else {
                throw RssError.notAFeed(url: document.url)
            }
            return RssArticlePage(articles: articles, nextPage: nil, url: document.url, readAsFeed: true, warnings: warnings.list)
        }
        let bindings = ScriptBindings(page: page, baseURL: document.baseURL)
        let environment = try engine.ruleEnvironment(document.baseURL, bindings: bindings)
        let items = try engine.elements(listRule, in: document.rootContext, environment: environment, url: document.url)
        var nextPage: String?
        if source.rules.nextPageByNumber {
            nextPage = sort.url
        } else if source.rules[.ruleNextPage] != nil {
            let reader = RssRuleReader(rules: source.rules, context: document.rootContext, environment: environment,
                                       tracer: engine.tracer)
            nextPage = reader.url(.ruleNextPage, &warnings)
        }
        var articles: [RssArticle] = []
        for item in items {
            let variables = RuleVariables()
            let itemEnvironment = try engine.ruleEnvironment(document.baseURL, variables: variables, bindings: bindings)
            let reader = RssRuleReader(rules: source.rules, context: item, environment: itemEnvironment, tracer: engine.tracer)
            let title = reader.line(.ruleTitle, &warnings)
            let pubDate = source.rules.texts[.rulePubDate] == nil ? nil : reader.line(.rulePubDate, &warnings)
            let description = source.rules.texts[.ruleDescription] == nil ? nil : reader.markup(.ruleDescription, &warnings)
            let image = reader.url(.ruleImage, &warnings)
            let link = reader.url(.ruleLink, &warnings) ?? ""
            guard !title.isEmpty else { continue }
            articles.append(RssArticle(title: title, link: link, pubDate: pubDate, description: description, image: image,
                                       sort: sort.name, origin: source.url, variables: variables.snapshot))
        }
        engine.noteScriptMessages(&warnings)
        return RssArticlePage(articles: articles, nextPage: nextPage, url: document.url, readAsFeed: false, warnings: warnings.list)
    }

    // MARK: - Article text

    /// An article's text, cleaned as a chapter's is (paragraphs, pictures as image lines, no markup): its
    /// page read with `ruleContent` when the source has one, else its description (or the content its feed
    /// carried).
    public func text(of article: RssArticle) async throws -> ChapterContent {
        try await engine.offPoolForScripts { try await textStep(of: article) }
    }

    private func textStep(of article: RssArticle) async throws -> ChapterContent {
        try requireUsable()
        let base = URLReference.resolve(article.link, against: article.origin.isEmpty ? source.url : article.origin) ?? article.link
        guard let contentRule = source.rules[.ruleContent] else {
            if source.rules.texts[.ruleContent] != nil {
                throw EngineError.unusableRules(step: "RSS content", problems: source.problems.filter { $0.field.hasSuffix("ruleContent") })
            }
            guard let written = article.description ?? article.content, !written.isEmpty else {
                throw RssError.nothingToRead(link: article.link)
            }
            let text = HTMLTextFormatter.paragraphs(of: FieldReader.contentText(of: RuleText(written, isMarkup: true), baseURL: base))
            return ChapterContent(url: base, title: article.title.isEmpty ? nil : article.title, text: text, pages: [],
                                  warnings: [])
        }
        let field = fieldPath("ruleLink")
        guard URLReference.isHTTP(SourceEngine.splitWebView(base).url) else { throw EngineError.invalidURL(field: field, url: article.link) }
        let bindings = ScriptBindings(baseURL: base)
        let headers = try engine.requestHeaders(bindings)
        let page: (request: HTTPRequest, webView: WebViewOptions?)
        let charset: String?
        if let template = try? URLTemplate(base, field: field), template.charset != nil || template.webView != nil || template.method != "GET" {
            page = try template.resolved(baseURL: source.url, sourceHeaders: headers, script: try engine.scripts?.scope(bindings))
            charset = template.charset
        } else {
            page = (HTTPRequest(url: base, headers: headers), nil)
            charset = nil
        }
        let document = try await engine.fetchDocument(page.request, charset: charset, webView: page.webView.map { ($0, field) })
        var warnings = Warnings()
        SourceEngine.noteTruncation(document, &warnings)
        let environment = try engine.ruleEnvironment(document.baseURL, variables: RuleVariables(article.variables),
                                                     bindings: ScriptBindings(baseURL: document.baseURL))
        let values = try engine.traced(contentRule, url: document.url) { () throws(RuleError) in
            try contentRule.texts(in: document.rootContext, environment: environment)
        }
        let text = HTMLTextFormatter.paragraphs(of: values.map { FieldReader.contentText(of: $0, baseURL: document.baseURL) }
            .joined(separator: "\n"))
        engine.noteScriptMessages(&warnings)
        var content = ChapterContent(url: document.url, title: article.title.isEmpty ? nil : article.title, text: text,
                                     pages: [document.url], warnings: warnings.list)
        if text.isEmpty { content.emptyReason = "\(fieldPath("ruleContent")) found no text on \(document.url)" }
        return content
    }

    // MARK: - Plumbing

    /// Refuses to run when the source's URL is unusable: every relative URL resolves against it.
    private func requireUsable() throws(EngineError) {
        let stopping = source.problems.filter { $0.field == fieldPath("sourceUrl") }
        if !stopping.isEmpty { throw EngineError.unusableRules(step: "RSS", problems: stopping) }
    }

    /// `field` with the `[3].` of an array file.
    private func fieldPath(_ field: String) -> String {
        (source.origin.index.map { "[\($0)]." } ?? "") + field
    }
}
